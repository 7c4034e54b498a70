import type { IncomingMessage, ServerResponse } from "node:http";
import { fromNodeHandler, type H3, type H3Event } from "h3";
import { OPERATOR_SCOPE_NAMES } from "../../../src/contract/oauth.ts";
import type { LimiterName } from "../../../src/contract/operation.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { createOAuthServer, mcpResource, type OAuthServer } from "../../../src/services/oauth/provider.ts";
import { markClientAddress } from "../../../src/services/oauth/client-documents.ts";
import { viewDocument } from "../../http/html-page.ts";
import { clientAddress } from "../../http/client-address.ts";
import { consentRoutes } from "./consent.ts";
import { connectedClientRoutes } from "./clients-page.ts";

const LIMITED: Record<string, { limiter: LimiterName; what: string }> = {
  "/oauth/register": { limiter: "oauthRegister", what: "client registrations" },
  "/oauth/token": { limiter: "oauthToken", what: "token requests" },
};

/**
 * Registration and the token endpoint are limited per client address (src/services/platform/limits.ts).
 * Over the limit, the answer is an OAuth error as these endpoints give them (JSON `error` and
 * `error_description`, which OAuth clients parse; not problem+json): 429 `slow_down` with Retry-After.
 */
function throttled(ctx: AppContext, event: H3Event): Response | undefined {
  const limited = event.req.method === "POST" ? LIMITED[event.url.pathname] : undefined;
  if (!limited) return undefined;
  const verdict = ctx.limits[limited.limiter].take(clientAddress(event, ctx.config.mail.trustProxyHops));
  if (verdict.ok) return undefined;
  const retry = String(verdict.retryAfterSeconds);
  return new Response(JSON.stringify({ error: "slow_down", error_description: `too many ${limited.what} from this address; retry in ${retry} s` }), {
    status: 429,
    headers: {
      "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", "Retry-After": retry,
      // Browser-based clients call these endpoints from their own origin: they may read the refusal.
      "Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": "Retry-After",
      "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
    },
  });
}

/**
 * The authorization server (src/services/oauth/provider.ts, a Koa app run on node's req/res) and the
 * MCP endpoint's protected resource metadata:
 *   GET  /.well-known/oauth-authorization-server      RFC 8414 metadata (also /.well-known/openid-configuration)
 *   GET  /.well-known/oauth-protected-resource/mcp    RFC 9728 metadata of /mcp (also without /mcp)
 *   GET  /oauth/authorize, POST /oauth/token, /oauth/register, /oauth/revoke, GET /oauth/jwks
 *   GET  /operator/connect/{uid} ...                  sign-in and consent (consent.ts)
 *   GET  /operator/clients, POST /operator/clients/{grant}/revoke   the desk's list (clients-page.ts)
 */
export function oauthRoutes(app: H3, ctx: AppContext): OAuthServer {
  const oauth = createOAuthServer(ctx, {
    renderError: (title, detail) => viewDocument(ctx, "oauth/error", { title, detail }),
  });
  const provider = (event: H3Event) => {
    const refused = throttled(ctx, event);
    if (refused) return refused;
    const node = event.runtime?.node as { req: IncomingMessage; res: ServerResponse } | undefined;
    // Who is asking, for the limit on client metadata documents fetched (looked up inside oidc-provider).
    if (node) markClientAddress(node.req, clientAddress(event, ctx.config.mail.trustProxyHops));
    // The answers of the authorization server carry the headers every answer of the site carries.
    node?.res.setHeader("X-Content-Type-Options", "nosniff");
    node?.res.setHeader("Referrer-Policy", "no-referrer");
    return fromNodeHandler(oauth.provider().callback() as unknown as Parameters<typeof fromNodeHandler>[0])(event);
  };
  app.all("/oauth/**", provider);
  app.all("/.well-known/oauth-authorization-server", provider);
  app.all("/.well-known/openid-configuration", provider);

  const resourceMetadata = (event: H3Event) => {
    const base = ctx.config.baseUrl;
    const headers = { "Content-Type": "application/json", "Cache-Control": "public, max-age=3600", "Access-Control-Allow-Origin": "*" };
    if (event.req.method === "OPTIONS") return new Response(null, { status: 204, headers: { ...headers, "Access-Control-Allow-Methods": "GET", "Access-Control-Allow-Headers": "mcp-protocol-version" } });
    return new Response(JSON.stringify({
      resource: mcpResource(ctx),
      authorization_servers: [base],
      scopes_supported: OPERATOR_SCOPE_NAMES,
      bearer_methods_supported: ["header"],
      resource_name: "citydaily MCP server (operator tools)",
      resource_documentation: `${base}/developers#mcp`,
    }, null, 2), { headers });
  };
  app.all("/.well-known/oauth-protected-resource/mcp", resourceMetadata);
  app.all("/.well-known/oauth-protected-resource", resourceMetadata);

  consentRoutes(app, ctx, oauth);
  connectedClientRoutes(app, ctx);
  return oauth;
}
