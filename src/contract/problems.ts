import { z } from "zod";

/**
 * Every problem code of the public contract (spec section 7): status, fixed title and resolution.
 * `resolution` speaks HTTP (paths, headers); `mcp`, where the advice differs over MCP, names the
 * tool to call and the field to read instead. `problemBody(..., transport)` picks one: one
 * catalogue, a resolution per transport.
 */
export const PROBLEMS = {
  city_not_found: { status: 404, title: "City not found", resolution: "List cities via /api/cities; a U.S. city with no edition has no data, and subscribing to it creates one", mcp: "Read `reason`. `unknown_place`: the slug names no U.S. place; take one of `suggestions`, or find the town with find_place. `no_newsletter`: a real place (in `place`) with no editions, archive or weather yet; get_place answers its facts, and subscribe_city starts its newsletter, only for the address of a reader who asked to subscribe themselves" },
  conflict: { status: 409, title: "Conflict", resolution: "Re-read the resource, then decide whether to retry", mcp: "Read `reason`: `not_selling` means the town takes no listings until it has a newsletter (its first subscriber, through subscribe_city with a reader's own address) or an operator (start_town_checkout); otherwise re-read (get_town_quote, get_listing_order), then decide whether to retry" },
  edition_not_found: { status: 404, title: "Edition not found", resolution: "Read /api/city/{slug} for existing dates; today's may not exist yet", mcp: "Call get_city and read `archives` for the dates that exist; today's may not exist yet" },
  endpoint_not_found: { status: 404, title: "Endpoint not found", resolution: "See the OpenAPI description (/openapi.json) and API catalog (/.well-known/api-catalog)", mcp: "Call tools/list for the tools this server offers" },
  forbidden: { status: 403, title: "Forbidden", resolution: "Credential valid but action not granted; do not retry" },
  internal_error: { status: 500, title: "Internal server error", resolution: "Retry once" },
  invalid_json: { status: 400, title: "Invalid JSON", resolution: "Send JSON with Content-Type: application/json", mcp: "Pass the arguments as one JSON object" },
  invalid_slug: { status: 400, title: "Invalid slug", resolution: "Use {city}-{state-name}, e.g. st-louis-missouri", mcp: "Use {city}-{state-name}, e.g. st-louis-missouri; find_place gives any town's `slug`" },
  method_not_allowed: { status: 405, title: "Method not allowed", resolution: "Use a method from the Allow response header", mcp: "Call tools/list for the tools this server offers" },
  missing_slug: { status: 400, title: "Missing slug", resolution: "Put a slug in the path", mcp: "Pass `slug`; find_place gives any town's `slug`" },
  not_found: { status: 404, title: "Not found", resolution: "Check the identifier", mcp: "Check the identifier: use the `orderId` that create_event_listing or create_business_listing answered; a reader's `token` is the last part of their own \"Manage your cities\" link, exactly as they gave it (ask them again), and `slug` one of the towns get_my_newsletter_choices lists" },
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
  // Additive v1 codes: requests Node's HTTP parser refuses before the app runs (api/http/client-error.ts).
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

/**
 * The cases of a code that the additive `reason` member tells apart (the developer page documents
 * them under the code's entry): the code stays what clients branch on, `reason` says which case.
 */
export const PROBLEM_CASES: Partial<Record<keyof typeof PROBLEMS, string>> = {
  city_not_found: "Two cases, told apart by `reason`. `unknown_place`: the slug names no U.S. place; `suggestions` lists the slugs it probably meant (`GET /api/places?q=` finds any place by name). `no_newsletter`: a real U.S. place (in `place`, with `hasNewsletter` and `sellsListings`) that has no newsletter yet, so the edition endpoints (`/api/city`, `/api/archive`, `/api/weather`, `/api/facts`, `/api/search?slug=`) have nothing for it; `detail` names it and says what starts its newsletter, `howToStart` says it without paths: its first subscriber (`POST /api/subscribe` with the address of a reader who asked). Its facts (time zone, local date, sun times, holidays, census figures) are at `GET /api/place/{slug}` for every place.",
  conflict: "For a listing purchase (`/api/listing-checkout`, `/api/business-checkout`), `reason: not_selling`: the town (in `place`) does not sell listings yet; `howToStart` says that a town does once it has a newsletter (its first subscriber) or an operator (a lease, `POST /api/operator-actions`). Other conflicts (a town already leased or reserved, an order in the wrong state) carry no `reason`: re-read and decide.",
};

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

/**
 * Additive members that say which case of a code an answer is (clients that branch on `code` keep
 * working; those that read these can tell a real place from a typo, and a town from a seller).
 */
export const ProblemReason = z.enum(["unknown_place", "no_newsletter", "not_selling"]).meta({
  id: "ProblemReason",
  description: "Which case of `code` this is. `city_not_found` has two: `unknown_place` (the slug names no U.S. place; `suggestions` may hold the slugs meant) and `no_newsletter` (a real U.S. place, in `place`, that has no newsletter yet, so no editions, archive or weather: its first subscriber starts it). `conflict` of a listing purchase: `not_selling` (the town, in `place`, takes listings once it has a newsletter, i.e. its first subscriber, or an operator leases it).",
});
export type ProblemReason = z.infer<typeof ProblemReason>;

export const ProblemPlace = z.object({
  slug: z.string(),
  name: z.string(),
  state: z.string(),
  hasNewsletter: z.boolean(),
  sellsListings: z.boolean(),
  url: z.url().meta({ description: "The place's page: its facts, and how to start its newsletter" }),
}).meta({ id: "ProblemPlace", description: "The real U.S. place a `no_newsletter` or `not_selling` answer is about" });

export interface ProblemExtra {
  reason?: ProblemReason;
  place?: z.infer<typeof ProblemPlace>;
  suggestions?: string[];
  howToStart?: string;
}

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
  reason: ProblemReason.optional(),
  place: ProblemPlace.optional(),
  suggestions: z.array(z.string()).optional().meta({ description: "On `unknown_place`: the slugs of the places the request probably meant, best first" }),
  howToStart: z.string().optional().meta({ description: "On `no_newsletter` and `not_selling`: what starts the town's newsletter (and its listings), in words" }),
}).meta({ id: "Problem", description: "RFC 9457 problem details (application/problem+json)" });
export type Problem = z.infer<typeof Problem>;

/**
 * The one builder of problem bodies (RFC 9457, spec section 7): HTTP sends it as
 * application/problem+json (api/http/problem.ts), MCP as the text of a tool error.
 */
export function problemBody(baseUrl: string, code: ProblemCode, detail: string, instance?: string, issues?: Array<{ path: string; message: string }>, transport: ProblemTransport = "http", extra?: ProblemExtra): Problem {
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
    ...(extra?.reason ? { reason: extra.reason } : {}),
    ...(extra?.place ? { place: extra.place } : {}),
    ...(extra?.suggestions?.length ? { suggestions: extra.suggestions } : {}),
    ...(extra?.howToStart ? { howToStart: extra.howToStart } : {}),
  };
}
