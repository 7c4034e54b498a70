import type { H3Event, Middleware } from "h3";
import { LRUCache } from "lru-cache";
import { compress, type Encoding } from "../../src/publish/precompressed.ts";

// Compression on the wire: brotli or gzip by Accept-Encoding for text responses above a small size.
// A response with an ETag is compressed once per validator and encoding and kept (published files
// and cached reads repeat), so a 4.6 MB place index costs its brotli pass once, not per request;
// the site's larger files come already compressed from their publish (`stored`).

// Never `text/event-stream`: an event stream is read as it is written, and compressing it means
// holding it back (a modern MCP client's `subscriptions/listen` stream would never arrive).
const COMPRESSIBLE = /^(text\/(?!event-stream)|application\/(json|problem\+json|xml|rss\+xml|linkset\+json|javascript)|image\/svg\+xml)/;

/** The best encoding the client accepts (q-values honoured; brotli preferred on a tie). */
export function chooseEncoding(acceptEncoding: string | null): Encoding | undefined {
  if (!acceptEncoding) return undefined;
  const q = new Map<string, number>();
  for (const part of acceptEncoding.toLowerCase().split(",")) {
    const [name, ...params] = part.trim().split(";");
    const weight = Number(params.map((p) => p.trim()).find((p) => p.startsWith("q="))?.slice(2) ?? 1);
    q.set(name.trim(), Number.isFinite(weight) ? weight : 0);
  }
  const of = (e: string) => q.get(e) ?? (q.has("*") ? q.get("*")! : 0);
  const br = of("br"), gz = of("gzip");
  if (br <= 0 && gz <= 0) return undefined;
  return br >= gz ? "br" : "gzip";
}

/** A strong validator per encoding: `"abc"` becomes `"abc-br"` (RFC 9110 wants them to differ). */
export const encodedEtag = (etag: string, encoding: Encoding) => etag.replace(/"$/, `-${encoding === "br" ? "br" : "gz"}"`);

function addVary(headers: Headers, value: string): void {
  const vary = headers.get("vary");
  if (!vary) headers.set("Vary", value);
  else if (!vary.toLowerCase().split(/\s*,\s*/).includes(value.toLowerCase())) headers.set("Vary", `${vary}, ${value}`);
}

export interface CompressionOptions {
  /** Bodies smaller than this are sent as they are (compression would barely pay). */
  minBytes?: number;
  /** Bytes of compressed bodies kept, keyed by ETag and encoding. */
  cacheBytes?: number;
  /** A compressed copy made ahead of time (src/publish/precompressed.ts), looked up by ETag. */
  stored?: (etag: string, encoding: Encoding) => Promise<Uint8Array | undefined>;
}

/**
 * A response that is sent as it is written: an event stream, or one whose handler marks it
 * `Cache-Control: no-transform` (RFC 9110: no intermediary may change it). It passes through as it
 * is: not compressed, not read into memory first, not copied.
 */
export function isStreamed(res: Response): boolean {
  return (res.headers.get("content-type") ?? "").toLowerCase().startsWith("text/event-stream") || /\bno-transform\b/i.test(res.headers.get("cache-control") ?? "");
}

export function compression(options: CompressionOptions = {}): Middleware {
  const minBytes = options.minBytes ?? 1024;
  const cache = new LRUCache<string, Uint8Array<ArrayBuffer>>({ maxSize: options.cacheBytes ?? 64 * 1024 * 1024, sizeCalculation: (b) => Math.max(1, b.byteLength) });

  async function encode(body: Uint8Array, encoding: Encoding, etag: string | null): Promise<Uint8Array<ArrayBuffer>> {
    const key = etag && `${etag}:${encoding}`;
    const hit = key ? cache.get(key) : undefined;
    if (hit) return hit;
    const stored = etag && options.stored ? await options.stored(etag, encoding) : undefined;
    // Kept bodies get a tighter brotli pass than one-off ones.
    const bytes = new Uint8Array(stored ?? (await compress(body, encoding, etag ? 5 : 4)));
    if (key) cache.set(key, bytes);
    return bytes;
  }

  return async (event: H3Event, next) => {
    const res = await next();
    if (!(res instanceof Response) || isStreamed(res)) return res;
    const type = res.headers.get("content-type") ?? "";
    // A 304 carries no Content-Type; it answers for whatever the client holds.
    if ((res.status !== 304 && !COMPRESSIBLE.test(type)) || res.headers.has("content-encoding") || (res.status !== 200 && res.status !== 304)) return res;
    const encoding = chooseEncoding(event.req.headers.get("accept-encoding"));
    if (!encoding && res.status === 200) {
      // Nothing to encode: the response goes out as it is, without copying its body (unless its
      // headers are immutable, as a fetched response's are).
      try {
        addVary(res.headers, "Accept-Encoding");
        return res;
      } catch {
        // fall through to the copy
      }
    }
    const headers = new Headers(res.headers);
    addVary(headers, "Accept-Encoding");
    const etag = headers.get("etag");
    if (event.req.method === "HEAD" && res.status === 200) {
      // The headers a GET would get: encoded when the body it would carry is large enough.
      if (encoding && Number(headers.get("content-length") ?? 0) >= minBytes) {
        headers.set("Content-Encoding", encoding);
        headers.delete("content-length");
        if (etag) headers.set("ETag", encodedEtag(etag, encoding));
      }
      return new Response(null, { status: 200, headers });
    }
    if (res.status === 304 || event.req.method === "HEAD" || !res.body) {
      // A 304 names the validator the client holds (an encoded one if its copy was encoded).
      const held = event.req.headers.get("if-none-match") ?? "";
      if (res.status === 304 && encoding && etag && held.includes(encodedEtag(etag, encoding))) headers.set("ETag", encodedEtag(etag, encoding));
      return new Response(null, { status: res.status, headers });
    }
    const body = new Uint8Array(await res.arrayBuffer());
    if (!encoding || body.byteLength < minBytes) return new Response(body, { status: res.status, headers });
    headers.set("Content-Encoding", encoding);
    headers.delete("content-length");
    if (etag) headers.set("ETag", encodedEtag(etag, encoding));
    return new Response(await encode(body, encoding, etag), { status: res.status, headers });
  };
}
