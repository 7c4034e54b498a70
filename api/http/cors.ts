// Cross-origin access: every /api response is open to any origin (spec sections 4 and 9).

export const isApi = (path: string) => path === "/api" || path.startsWith("/api/");

/** Headers every /api response carries, errors included. */
export function apiHeaders(headers: Headers): void {
  headers.set("API-Version", "v1");
  headers.set("Access-Control-Allow-Origin", "*");
  headers.set("Access-Control-Expose-Headers", "API-Version, ETag, Retry-After, X-Request-Id, X-Markdown-Tokens, Allow, Idempotent-Replayed");
}

/** The answer to a CORS preflight (`OPTIONS`) on a path that takes `allow`. */
export function preflight(allow: string): Response {
  return new Response(null, {
    status: 204,
    headers: {
      Allow: allow,
      "Access-Control-Allow-Methods": allow,
      "Access-Control-Allow-Headers": "Content-Type, Accept, If-None-Match, Authorization, Idempotency-Key, MCP-Protocol-Version, Mcp-Session-Id",
      "Access-Control-Max-Age": "86400",
    },
  });
}
