import type { H3Event } from "h3";
// srvx (h3's server layer) writes a FastResponse's string body to the socket in one go, where a
// web Response goes through a ReadableStream and several writes (a quarter of a cached read's CPU).
import { FastResponse } from "srvx/node";
import { etagOf } from "../../src/publish/precompressed.ts";

// A strong validator over the exact bytes sent: the publisher names its compressed copies by it.

/**
 * RFC 9110 If-None-Match uses the weak comparison: `W/` prefixes are ignored, `*` matches anything.
 * The validators of compressed copies (`"abc-br"`, api/http/compression.ts) match their content's.
 */
function matches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(",").some((t) => {
    const tag = t.trim().replace(/^W\//, "").replace(/-(br|gz)"$/, '"');
    return tag === "*" || tag === etag;
  });
}

/**
 * The answers a cacheable read gives without its body: 304 when the client has `etag`, or the
 * headers of a HEAD (with the length the body would have). Undefined when the body must be sent.
 */
export function bodilessResponse(event: H3Event, etag: string, byteLength: () => number, contentType: string, cacheControl: string, extra: Record<string, string> = {}): Response | undefined {
  const headers = { "Cache-Control": cacheControl, ETag: etag, ...extra };
  if (matches(event.req.headers.get("if-none-match"), etag)) return new FastResponse(null, { status: 304, headers });
  // HEAD says how long the body would be, so the headers match a GET's (compression reads it).
  if (event.req.method === "HEAD") return new FastResponse(null, { status: 200, headers: { "Content-Type": contentType, "Content-Length": String(byteLength()), ...headers } });
  return undefined;
}

/**
 * A cacheable read: body with `Cache-Control` and a strong `ETag`, or 304 when the client has it.
 * `etag` may come precomputed (from etagOf) by a caller that can remember it, e.g. per file.
 */
export function cachedResponse(event: H3Event, body: string, contentType: string, cacheControl: string, extra: Record<string, string> = {}, etag = etagOf(body)): Response {
  return bodilessResponse(event, etag, () => Buffer.byteLength(body), contentType, cacheControl, extra)
    ?? new FastResponse(body, { status: 200, headers: { "Content-Type": contentType, "Cache-Control": cacheControl, ETag: etag, ...extra } });
}

export function jsonWrite(data: unknown, status = 200, extra: Record<string, string> = {}): Response {
  return new FastResponse(JSON.stringify(data), {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", ...extra },
  });
}
