import type { IncomingMessage, ServerResponse } from "node:http";
import type { H3Event, Middleware } from "h3";
import { LRUCache } from "lru-cache";
import { FastResponse } from "srvx/node";
import { currentGeneration, siteDirs } from "../../src/publish/site-dir.ts";
import type { AppContext } from "../../src/services/platform/context.ts";
import { dataVersionOfThisTurn } from "../../src/services/platform/data-version.ts";
import { chooseEncoding } from "./compression.ts";
import { prefersMarkdown } from "./negotiation.ts";

/**
 * Finished answers of public reads, replayed at the node:http layer before h3 sees the request: the
 * exact status, headers and (encoded) bytes the app sent, written in one go. A profile of a cached
 * read through h3 had most of its time in building the web Request/Response, the middlewares and
 * the hooks, not in our code; this is the in-process equivalent of a CDN's cache in front of the app.
 *
 * What may be kept is decided by the route (`keepAtEdge`): the operation router for reads its
 * response cache keeps, the site for published files. An entry is good while the *state* it was
 * made from is unchanged (the database's data version and the live site generation, read before
 * the app computed the answer) and until the instant the route gave (the clock-bound reads). The
 * state is read at most once per event-loop turn: requests parsed in the same turn are concurrent
 * with one another; every write through HTTP reads it afresh for whatever comes after it.
 *
 * Kept only: GET without a body or `If-None-Match` (conditional requests, HEAD and everything else
 * go through the app, which answers them from its own caches), status 200, a shared-cacheable
 * `Cache-Control`, `Vary` limited to `Accept` and `Accept-Encoding` (both are in the key), no cookie.
 * Its answers say so in `Cache-Status` (RFC 9211).
 */
export interface EdgeCache {
  /** Answers `req` from a kept entry; false when the app must answer it. */
  serve(req: IncomingMessage, res: ServerResponse): boolean;
  /** The app's outermost middleware: keeps what routes marked, forgets the state after writes. */
  middleware: Middleware;
}

interface Entry {
  state: string;
  until: number;
  /** Flat name/value pairs, as `writeHead` takes them (no X-Request-Id: that is per request). */
  headers: string[];
  body: Buffer;
}

/** Marks the answer being made as one the edge may keep, good until `until` (ms on the app's clock). */
export function keepAtEdge(event: H3Event, until = Infinity): void {
  event.context.edgeUntil = until;
}

// RFC 9211: which answers the edge gave, and which it kept.
const HIT = "citydaily-edge; hit";
const STORED = "citydaily-edge; fwd=miss; stored";
const KEEPABLE_VARY = new Set(["accept", "accept-encoding", ""]);
const MAX_BODY_BYTES = 2 * 1024 * 1024;

export interface EdgeOptions {
  /** Headers every answer carries (X-Request-Id aside), as the app's onResponse hook sets them. */
  finish(headers: Headers, pathname: string): void;
  /** Logs a request the edge answered, as the app logs the others. */
  log(requestId: string, method: string, path: string, status: number, startedAt: number): void;
  requestId(incoming: string | undefined): string;
  maxBytes?: number;
}

export function createEdgeCache(ctx: AppContext, options: EdgeOptions): EdgeCache {
  const dirs = siteDirs(ctx.config.dataDir);
  const entries = new LRUCache<string, Entry>({ maxSize: options.maxBytes ?? 64 * 1024 * 1024, sizeCalculation: (e) => e.body.byteLength + 512 });
  let state: string | undefined;
  // One read of the state per turn of the event loop (check phase follows the poll that parsed the requests).
  const currentState = () => {
    if (state === undefined) {
      state = `${dataVersionOfThisTurn(ctx)}|${currentGeneration(dirs) ?? ""}`;
      setImmediate(() => (state = undefined));
    }
    return state;
  };
  const keyOf = (url: string, acceptEncoding: string | undefined, accept: string | undefined) =>
    `${url}\n${chooseEncoding(acceptEncoding ?? null) ?? ""}\n${prefersMarkdown(accept ?? null) ? "md" : ""}`;
  const eligible = (method: string | undefined, headers: IncomingMessage["headers"]) =>
    method === "GET" && headers["if-none-match"] === undefined && headers["content-length"] === undefined && headers["transfer-encoding"] === undefined;

  function serve(req: IncomingMessage, res: ServerResponse): boolean {
    if (!eligible(req.method, req.headers) || entries.size === 0) return false;
    const startedAt = performance.now();
    const key = keyOf(req.url ?? "", req.headers["accept-encoding"], req.headers.accept);
    const entry = entries.get(key);
    if (!entry) return false;
    let now: string;
    try {
      now = currentState();
    } catch {
      return false; // the database is closing: let the app answer (or fail) as it would
    }
    if (entry.state !== now || ctx.config.now().getTime() >= entry.until) {
      entries.delete(key);
      return false;
    }
    const incoming = req.headers["x-request-id"];
    const requestId = options.requestId(Array.isArray(incoming) ? incoming[0] : incoming);
    res.writeHead(200, [...entry.headers, "X-Request-Id", requestId, "Cache-Status", HIT]);
    res.end(entry.body);
    options.log(requestId, "GET", (req.url ?? "").split("?")[0], 200, startedAt);
    return true;
  }

  const middleware: Middleware = async (event, next) => {
    const node = (event.req as { runtime?: { node?: { req: IncomingMessage } } }).runtime?.node?.req;
    const keepable = node !== undefined && eligible(node.method, node.headers);
    const stateBefore = keepable ? currentState() : undefined;
    let res: unknown;
    try {
      res = await next();
    } finally {
      // Whatever a write changed is seen by the next request, in this turn or not.
      if (event.req.method !== "GET" && event.req.method !== "HEAD") state = undefined;
    }
    const until = event.context.edgeUntil as number | undefined;
    if (!keepable || until === undefined || !(res instanceof Response) || res.status !== 200) return res;
    const cacheControl = res.headers.get("cache-control") ?? "";
    const vary = (res.headers.get("vary") ?? "").toLowerCase().split(",").map((v) => v.trim());
    if (/no-store|private|no-cache/.test(cacheControl) || res.headers.has("set-cookie") || !vary.every((v) => KEEPABLE_VARY.has(v))) return res;
    const body = Buffer.from(await res.arrayBuffer());
    if (body.byteLength <= MAX_BODY_BYTES) {
      const headers = new Headers(res.headers);
      options.finish(headers, event.url.pathname);
      headers.delete("x-request-id");
      headers.set("Content-Length", String(body.byteLength));
      entries.set(keyOf(node.url ?? "", node.headers["accept-encoding"], node.headers.accept), { state: stateBefore!, until, headers: [...headers].flat(), body });
    }
    const headers = new Headers(res.headers);
    if (body.byteLength <= MAX_BODY_BYTES) headers.set("Cache-Status", STORED);
    return new FastResponse(body, { status: 200, headers });
  };

  return { serve, middleware };
}
