import crypto from "node:crypto";
import Provider, { errors } from "oidc-provider";
import { ACCESS_TOKEN_SECONDS, OPERATOR_SCOPE_NAMES, REFRESH_TOKEN_SECONDS } from "../../contract/oauth.ts";
import { keepSigningKeys, signingKeys } from "../../store/oauth/models.ts";
import type { AppContext } from "../platform/context.ts";
import { sqliteAdapter } from "./adapter.ts";
import { createDocumentFetcher, type DocumentFetcher } from "./client-documents.ts";
import { publicClientsOnly } from "./client-policy.ts";

// The authorization server operators sign their AI clients in with, on oidc-provider: OAuth 2.1's
// authorization code flow with PKCE (S256 only), resource indicators (every token's audience is the
// MCP endpoint), dynamic registration and client ID metadata documents, hour-long access tokens with
// refresh tokens that rotate at each use, revocation, and the issuer in every authorization response.
// The person signs in and consents on the desk's pages (api/routes/oauth/).

/** Where the server's endpoints live; the issuer is the site's origin, so metadata is at /.well-known/oauth-authorization-server. */
export const OAUTH_PREFIX = "/oauth";
/** The consent page (under /operator, so the desk's session cookie reaches it). */
export const INTERACTION_PREFIX = "/operator/connect";

/** The protected resource: the MCP endpoint. */
export const mcpResource = (ctx: AppContext) => `${ctx.config.baseUrl}/mcp`;

/** The signing key (RSA, RS256: oidc-provider's default algorithm), made on first use and kept in the database. */
function keys(ctx: AppContext): { keys: object[] } {
  const kept = signingKeys(ctx.db);
  if (kept) return JSON.parse(kept) as { keys: object[] };
  const { privateKey } = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: "jwk" }), kid: crypto.randomUUID(), alg: "RS256", use: "sig" };
  return JSON.parse(keepSigningKeys(ctx.db, JSON.stringify({ keys: [jwk] }), ctx.config.now().toISOString())) as { keys: object[] };
}

export interface ProviderHooks {
  /** An error page for a person (a bad authorization request), in the site's layout. */
  renderError(title: string, detail: string): Promise<string>;
}

function configuration(ctx: AppContext, hooks: ProviderHooks, documents: DocumentFetcher): Record<string, unknown> {
  const resource = () => mcpResource(ctx);
  return {
    adapter: sqliteAdapter(ctx, documents),
    jwks: keys(ctx),
    cookies: { keys: [ctx.secrets.stored("oauth_cookie_secret")], long: { signed: true, sameSite: "lax" }, short: { signed: true, sameSite: "lax" } },
    routes: {
      authorization: `${OAUTH_PREFIX}/authorize`, token: `${OAUTH_PREFIX}/token`, registration: `${OAUTH_PREFIX}/register`,
      revocation: `${OAUTH_PREFIX}/revoke`, jwks: `${OAUTH_PREFIX}/jwks`, end_session: `${OAUTH_PREFIX}/session/end`,
      introspection: `${OAUTH_PREFIX}/introspect`, userinfo: `${OAUTH_PREFIX}/me`, pushed_authorization_request: `${OAUTH_PREFIX}/par`,
    },
    // Not OpenID Connect: no id token, no userinfo. The operator's scopes are the resource's; listed
    // here too, since a client registering itself names them in its metadata (the SDK does).
    scopes: [...OPERATOR_SCOPE_NAMES],
    claims: {},
    responseTypes: ["code"],
    pkce: { required: () => true },
    clientDefaults: { grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" },
    // Public clients only (PKCE is their proof): no client secret is ever issued or accepted, and a
    // redirect in plain http goes to this machine only (client-policy.ts).
    clientAuthMethods: ["none"],
    extraClientMetadata: publicClientsOnly,
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      introspection: { enabled: false },
      // A client revokes only the tokens issued to it (another's is ignored, as RFC 7009 answers an unknown one).
      revocation: { enabled: true, allowedPolicy: async (_koa: unknown, client: { clientId: string }, token: { clientId?: string }) => token.clientId === client.clientId },
      registration: { enabled: true, idFactory: () => crypto.randomUUID() },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource(),
        useGrantedResource: () => true,
        getResourceServerInfo: (_koa: unknown, indicator: string) => {
          if (indicator !== resource()) throw new errors.InvalidTarget!(`this server issues tokens for ${resource()} only`);
          return { scope: OPERATOR_SCOPE_NAMES.join(" "), audience: resource(), accessTokenTTL: ACCESS_TOKEN_SECONDS, accessTokenFormat: "opaque" };
        },
      },
    },
    // Clients may name themselves by the URL of their metadata document (src/services/oauth/client-documents.ts).
    discovery: { client_id_metadata_document_supported: true, service_documentation: `${ctx.config.baseUrl}/developers#mcp` },
    // Every authorization response names the issuer (RFC 9207): oidc-provider adds `iss` by default.
    ttl: {
      AccessToken: ACCESS_TOKEN_SECONDS, AuthorizationCode: 60, Interaction: 3600, Session: 12 * 3600, Grant: REFRESH_TOKEN_SECONDS,
      RefreshToken: REFRESH_TOKEN_SECONDS,
    },
    // A client keeps working after the browser's sign-in session ends: through its refresh token.
    expiresWithSession: () => false,
    issueRefreshToken: (_koa: unknown, client: { grantTypeAllowed(t: string): boolean }) => client.grantTypeAllowed("refresh_token"),
    rotateRefreshToken: () => true,
    allowOmittingSingleRegisteredRedirectUri: true,
    // The MCP Inspector and browser-based clients call the token endpoint from their own origin.
    clientBasedCORS: () => true,
    interactions: { url: (_koa: unknown, interaction: { uid: string }) => `${INTERACTION_PREFIX}/${interaction.uid}` },
    findAccount: (_koa: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub }) }),
    renderError: async (koa: { type: string; body: string }, out: { error: string; error_description?: string }) => {
      koa.type = "html";
      koa.body = await hooks.renderError("This sign-in request cannot go on", `${out.error}${out.error_description ? `: ${out.error_description}` : ""}`);
    },
  };
}

export interface OAuthServer {
  /** The provider, made at the first request (the base URL is final only once the server listens). */
  provider(): Provider;
}

/**
 * oidc-provider builds every URL it advertises or redirects to (its metadata's endpoints, `jwks_uri`,
 * the way back from the consent page) from the request: Koa's host and protocol, which come from
 * `Host`, `X-Forwarded-Host` and `X-Forwarded-Proto`, or from an absolute request target. A poisoned
 * one would put another origin into answers a shared cache may keep, sending clients' codes and PKCE
 * verifiers there. So each request is answered as if it came to BASE_URL, the one origin: the host,
 * protocol and URL oidc-provider reads are BASE_URL's, and no forwarded header is read (`proxy` off).
 * An https BASE_URL stays https here, so the cookies are still Secure behind a TLS proxy.
 */
function pinOrigin(request: object, base: URL): void {
  const path = (request as { originalUrl: string }).originalUrl;
  const target = URL.parse(path, base.origin) ?? base;
  const pinned = { host: base.host, hostname: base.hostname, protocol: base.protocol.slice(0, -1), origin: base.origin, href: `${base.origin}${target.pathname}${target.search}` };
  for (const [name, value] of Object.entries(pinned)) Object.defineProperty(request, name, { value, configurable: true });
}

/** Its metadata is built from BASE_URL alone (pinOrigin): any cache may keep it an hour. */
const METADATA_CACHE = "public, max-age=3600";

export function createOAuthServer(ctx: AppContext, hooks: ProviderHooks): OAuthServer {
  let made: { issuer: string; provider: Provider } | undefined;
  const documents = createDocumentFetcher(ctx);
  return {
    provider() {
      const issuer = ctx.config.baseUrl;
      if (made?.issuer !== issuer) {
        const provider = new Provider(issuer, configuration(ctx, hooks, documents));
        provider.proxy = false;
        const base = new URL(issuer);
        provider.use(async (koa, next) => {
          pinOrigin(koa.request, base);
          await next();
          if (koa.oidc?.route === "discovery" && koa.status === 200) koa.set("Cache-Control", METADATA_CACHE);
        });
        provider.on("server_error", (_koa: unknown, err: unknown) => ctx.log.error({ err }, "OAuth server error"));
        made = { issuer, provider };
      }
      return made.provider;
    },
  };
}
