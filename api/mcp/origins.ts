import { localhostAllowedOrigins, originValidationResponse } from "@modelcontextprotocol/server";
import { isHttpsOrigin } from "../../src/config/security.ts";
import type { AppContext } from "../../src/services/platform/context.ts";

/**
 * Which browser pages may call `/mcp` (DNS rebinding: the streamable HTTP transport asks servers to
 * check `Origin`). A request without `Origin` (an MCP client that is not a browser) is always served.
 * With an https BASE_URL, a deployment: only the site's own origin and those of MCP_ALLOWED_ORIGINS,
 * compared whole (scheme, host, port); any other answers 403. With an http BASE_URL, development: the
 * site's host and a local tool on any localhost port too, as before.
 * Returns the refusal, or undefined to serve the request. Read per request: the base URL is only
 * final once the server listens (PORT=0).
 */
export function mcpOriginRefusal(ctx: AppContext, req: Request): Response | undefined {
  const base = ctx.config.baseUrl;
  const listed = ctx.config.security.mcpAllowedOrigins;
  const origin = req.headers.get("origin");
  if (!isHttpsOrigin(base)) {
    if (origin !== null && listed.includes(URL.parse(origin)?.origin ?? "")) return undefined;
    const hosts = [URL.parse(base)?.hostname, ...localhostAllowedOrigins()].filter((h): h is string => Boolean(h));
    return originValidationResponse(req, hosts) ?? undefined;
  }
  if (origin === null) return undefined;
  const parsed = URL.parse(origin)?.origin;
  if (parsed !== undefined && origin === parsed && (parsed === new URL(base).origin || listed.includes(parsed))) return undefined;
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message: `Forbidden: the Origin ${origin.slice(0, 200)} may not call this server.` } }), {
    status: 403, headers: { "Content-Type": "application/json", "Cache-Control": "no-store" },
  });
}
