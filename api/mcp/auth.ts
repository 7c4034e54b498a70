import type { H3Event } from "h3";
import { OPERATOR_SCOPE_NAMES } from "../../src/contract/oauth.ts";
import { OPERATOR_TOOL_SCOPES } from "../../src/mcp/operator-tools.ts";
import type { AppContext } from "../../src/services/platform/context.ts";
import type { OAuthServer } from "../../src/services/oauth/provider.ts";
import { checkAccessToken, type OperatorCaller } from "../../src/services/oauth/tokens.ts";

// The MCP endpoint as a protected resource for the operator's tools (RFC 9728, RFC 6750): public
// tools need nothing; an operator tool needs an access token issued for `{BASE_URL}/mcp` carrying
// the tool's scope. `/mcp?operator` asks for the token on every request, so a client that connects
// there signs in at once (Claude and Claude Code start sign-in on the first 401).

const quoted = (s: string) => `"${s.replace(/["\\]/g, "")}"`;

function challenge(ctx: AppContext, status: 401 | 403, scope: string, error?: { code: string; description: string }, id: unknown = null): Response {
  const params = [
    ...(error ? [`error=${quoted(error.code)}`, `error_description=${quoted(error.description)}`] : []),
    `resource_metadata=${quoted(`${ctx.config.baseUrl}/.well-known/oauth-protected-resource/mcp`)}`,
    `scope=${quoted(scope)}`,
  ];
  const message = error?.description ?? "This tool acts for a town's operator: sign in with OAuth (the WWW-Authenticate header names the resource metadata).";
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: typeof id === "string" || typeof id === "number" ? id : null, error: { code: -32001, message } }), {
    status, headers: { "Content-Type": "application/json", "Cache-Control": "no-store", "WWW-Authenticate": `Bearer ${params.join(", ")}` },
  });
}

/** The operator tools a JSON-RPC body calls (one message or a batch), with each request's id. */
function operatorCalls(body: unknown): Array<{ tool: string; id: unknown }> {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((m) => {
    const message = m as { method?: unknown; id?: unknown; params?: { name?: unknown } } | null;
    const name = message?.method === "tools/call" ? message.params?.name : undefined;
    return typeof name === "string" && OPERATOR_TOOL_SCOPES.has(name) ? [{ tool: name, id: message!.id }] : [];
  });
}

/**
 * Who a request acts for, or the refusal it gets: 401 without a token where one is needed or with a
 * token that is not good here (unknown, expired, revoked, for another audience); 403
 * `insufficient_scope` for an operator tool the token's scope does not cover.
 */
export async function mcpAuthorization(ctx: AppContext, oauth: OAuthServer, event: H3Event, body: unknown): Promise<{ operator?: OperatorCaller } | Response> {
  const all = OPERATOR_SCOPE_NAMES.join(" ");
  const header = event.req.headers.get("authorization");
  const calls = operatorCalls(body);
  const needed = [...new Set(calls.map((c) => OPERATOR_TOOL_SCOPES.get(c.tool)).filter((s) => s !== undefined))];
  if (!header) {
    if (calls.length === 0 && !event.url.searchParams.has("operator")) return {};
    return challenge(ctx, 401, needed.length ? needed.join(" ") : all, undefined, calls[0]?.id);
  }
  const token = /^Bearer\s+([\w.~+/-]+=*)$/i.exec(header)?.[1];
  const checked = token ? await checkAccessToken(ctx, oauth, token) : { ok: false as const, description: "The Authorization header is not a Bearer token." };
  if (!checked.ok) return challenge(ctx, 401, all, { code: "invalid_token", description: checked.description }, calls[0]?.id);
  const missing = needed.filter((s) => !checked.operator.scopes.has(s));
  if (missing.length) {
    return challenge(ctx, 403, [...checked.operator.scopes, ...missing].join(" "), { code: "insufficient_scope", description: `This call needs the ${missing.join(" and ")} permission, which the operator did not give this client.` }, calls[0]?.id);
  }
  return { operator: checked.operator };
}
