import { z } from "zod";

/**
 * Every problem code of the public contract (spec section 7): status, fixed title and resolution.
 * `resolution` speaks HTTP (paths, headers); `mcp`, where the advice differs over MCP, names the
 * tool to call and the field to read instead. `problemBody(..., transport)` picks one: one
 * catalogue, a resolution per transport.
 */
export const PROBLEMS = {
  city_not_found: { status: 404, title: "City not found", resolution: "List cities via /api/cities; a U.S. city with no edition has no data, and subscribing to it creates one", mcp: "Find the town with find_place (any U.S. place, its `slug` and `hasNewsletter`) or list_cities (towns with a newsletter); subscribe_city starts the newsletter of a town that has none" },
  conflict: { status: 409, title: "Conflict", resolution: "Re-read the resource, then decide whether to retry" },
  edition_not_found: { status: 404, title: "Edition not found", resolution: "Read /api/city/{slug} for existing dates; today's may not exist yet", mcp: "Call get_city and read `archives` for the dates that exist; today's may not exist yet" },
  endpoint_not_found: { status: 404, title: "Endpoint not found", resolution: "See the OpenAPI description (/openapi.json) and API catalog (/.well-known/api-catalog)", mcp: "Call tools/list for the tools this server offers" },
  forbidden: { status: 403, title: "Forbidden", resolution: "Credential valid but action not granted; do not retry" },
  internal_error: { status: 500, title: "Internal server error", resolution: "Retry once" },
  invalid_json: { status: 400, title: "Invalid JSON", resolution: "Send JSON with Content-Type: application/json", mcp: "Pass the arguments as one JSON object" },
  invalid_slug: { status: 400, title: "Invalid slug", resolution: "Use {city}-{state-name}, e.g. st-louis-missouri", mcp: "Use {city}-{state-name}, e.g. st-louis-missouri; find_place gives any town's `slug`" },
  method_not_allowed: { status: 405, title: "Method not allowed", resolution: "Use a method from the Allow response header", mcp: "Call tools/list for the tools this server offers" },
  missing_slug: { status: 400, title: "Missing slug", resolution: "Put a slug in the path", mcp: "Pass `slug`; find_place gives any town's `slug`" },
  not_found: { status: 404, title: "Not found", resolution: "Check the identifier", mcp: "Check the identifier: use the `orderId` that create_event_listing or create_business_listing answered" },
  payload_too_large: { status: 413, title: "Payload too large", resolution: "Send less; the limit is given in detail" },
  rate_limited: { status: 429, title: "Rate limit exceeded", resolution: "Wait the number of seconds in the Retry-After header", mcp: "Wait the number of seconds in `retryAfter`, then call the tool again" },
  service_misconfigured: { status: 503, title: "Service misconfigured", resolution: "Retry later" },
  unauthorized: { status: 401, title: "Unauthorized", resolution: "Authentication required; this endpoint is not part of the public API", mcp: "Not available over MCP" },
  upstream_error: { status: 502, title: "Upstream error", resolution: "Retry with backoff" },
  validation_error: { status: 400, title: "Validation error", resolution: "Read issues[], fix, retry", mcp: "Read `issues[]` (each names the argument in `path`), fix those arguments, call again" },
  weather_unavailable: { status: 404, title: "Weather unavailable", resolution: "Retry later; weather refreshes with each morning's edition", mcp: "Call get_weather again later; weather refreshes with each morning's edition" },
  // Not in the spec's table (it leaves the code of the oEmbed `format=xml` 501 open): an additive v1 code.
  not_implemented: { status: 501, title: "Not implemented", resolution: "Use a supported format (json)", mcp: "Not available over MCP" },
  // Additive v1 code: the disk under the database is full. Nothing was stored; reads keep working.
  storage_full: { status: 503, title: "Storage full", resolution: "Nothing was stored; retry after the seconds in the Retry-After header (reads still work)", mcp: "Nothing was stored; wait the seconds in `retryAfter`, then call the tool again (read tools still work)" },
  // Additive v1 codes: requests Node's HTTP parser refuses before the app runs (api/client-error.ts).
  headers_too_large: { status: 431, title: "Request headers too large", resolution: "Send at most 16 KB of headers (fewer or shorter cookies and custom headers)" },
  request_timeout: { status: 408, title: "Request timeout", resolution: "Send the whole request within the time limit, then retry" },
  // Feeds a town adds (additive codes, admin and operator desk only): why an address was refused; nothing is stored.
  feed_address_refused: { status: 422, title: "Feed address refused", resolution: "Give a public http(s) address; private, loopback and link-local addresses are not fetched" },
  feed_unreachable: { status: 422, title: "Feed could not be fetched", resolution: "Check the address opens in a browser, then retry; it must answer within the time limit" },
  feed_too_large: { status: 422, title: "Feed too large", resolution: "Use a smaller feed (the limit is given in detail), e.g. one with fewer past items" },
  feed_unreadable: { status: 422, title: "Not a calendar or feed", resolution: "Give the address of an iCalendar (.ics), RSS or Atom feed, not of a web page" },
  feed_exists: { status: 409, title: "Feed already added", resolution: "The town already has this feed; list its feeds to see it" },
  // Idempotency keys (additive codes): the creating writes that take `Idempotency-Key` / `idempotencyKey`.
  idempotency_key_reused: { status: 422, title: "Idempotency key reused with a different request", resolution: "Send the first request's exact body again to read its answer, or use a new Idempotency-Key for a new request", mcp: "Call again with the first call's exact arguments to read its answer, or use a new `idempotencyKey` for a new request" },
  idempotency_in_progress: { status: 409, title: "Request with this idempotency key in progress", resolution: "The first request with this key is still running; retry after the seconds in the Retry-After header to read its answer", mcp: "The first call with this `idempotencyKey` is still running; wait the seconds in `retryAfter`, then call again with the same key to read its answer" },
} as const satisfies Record<string, { status: number; title: string; resolution: string; mcp?: string }>;

/** Where a problem is read: the HTTP API (problem+json) or an MCP tool error. */
export type ProblemTransport = "http" | "mcp";

export type ProblemCode = keyof typeof PROBLEMS;

/** The resolution of a code as a client of that transport reads it. */
export function resolutionOf(code: ProblemCode, transport: ProblemTransport = "http"): string {
  const p: { resolution: string; mcp?: string } = PROBLEMS[code];
  return transport === "mcp" ? p.mcp ?? p.resolution : p.resolution;
}
export const ProblemCode = z.enum(Object.keys(PROBLEMS) as [ProblemCode, ...ProblemCode[]]).meta({
  id: "ProblemCode",
  description: "Stable machine-readable error code; branch on it.",
});

export const Issue = z.object({
  path: z.string().meta({ description: "Dotted path of the failing field, e.g. `email` or `query.limit`" }),
  message: z.string(),
}).meta({ id: "ValidationIssue" });

export const Problem = z.object({
  type: z.url().meta({ description: "`{base_url}/developers#error-<code>`" }),
  title: z.string().meta({ description: "Identical for every instance of a code" }),
  status: z.int().meta({ description: "Equals the HTTP status" }),
  detail: z.string().meta({ description: "Specific to this request" }),
  instance: z.string().optional().meta({ description: "The failing request path" }),
  code: ProblemCode,
  resolution: z.string(),
  documentation: z.url(),
  error: z.string().meta({ description: "Duplicate of `detail` for older clients" }),
  issues: z.array(Issue).optional().meta({ description: "Per-field failures; present on validation failures only" }),
  retryAfter: z.int().min(0).optional().meta({ description: "Over MCP, on `rate_limited` and `idempotency_in_progress` (and `storage_full`): seconds to wait before calling again (HTTP sends the `Retry-After` header instead)" }),
}).meta({ id: "Problem", description: "RFC 9457 problem details (application/problem+json)" });
export type Problem = z.infer<typeof Problem>;

/**
 * The one builder of problem bodies (RFC 9457, spec section 7): HTTP sends it as
 * application/problem+json (api/problem.ts), MCP as the text of a tool error.
 */
export function problemBody(baseUrl: string, code: ProblemCode, detail: string, instance?: string, issues?: Array<{ path: string; message: string }>, transport: ProblemTransport = "http"): Problem {
  const p = PROBLEMS[code];
  return {
    type: `${baseUrl}/developers#error-${code}`,
    title: p.title,
    status: p.status,
    detail,
    ...(instance !== undefined ? { instance } : {}),
    code,
    resolution: resolutionOf(code, transport),
    documentation: `${baseUrl}/developers#error-${code}`,
    error: detail,
    ...(code === "validation_error" ? { issues: issues ?? [] } : {}),
  };
}
