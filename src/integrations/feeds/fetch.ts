import http from "node:http";
import https from "node:https";
import zlib from "node:zlib";
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from "request-filtering-agent";
import { SourceError } from "../http-json.ts";

// Fetching a feed whose address a person typed: it must not reach inside our network (server-side
// request forgery) nor hold the morning. The address is checked when the connection is made, after
// the name is resolved (request-filtering-agent), so a public name that resolves to 127.0.0.1,
// 10.x, 169.254.169.254 or ::1 is refused, and every redirect goes through the same check. The body
// is counted as it arrives (decompressed) and cut at `maxBytes`; the whole exchange, redirects and
// body included, has `timeoutMs`.

export interface FeedFetchOptions {
  /** `FEEDS_ALLOW_PRIVATE=true`: tests and local use only. */
  allowPrivate: boolean;
  maxBytes: number;
  timeoutMs: number;
  userAgent: string;
  maxRedirects?: number;
  /** Addresses or CIDR ranges allowed even though private (tests that must reach 127.0.0.1 while checking the rest). */
  allowAddresses?: string[];
}

/** What the last good fetch left, sent back as a conditional request. */
export interface Validators {
  etag?: string | null;
  lastModified?: string | null;
}

export type FeedFetchResult =
  | { status: "not-modified" }
  | { status: "ok"; body: string; contentType: string | null; etag: string | null; lastModified: string | null; url: string };

export interface FeedFetcher {
  /** Rejects with SourceError (`refused`, `too_large`, `timeout`, `network`, `status`, `aborted`). */
  fetch(url: string, validators?: Validators, signal?: AbortSignal): Promise<FeedFetchResult>;
  close(): void;
}

const ACCEPT = "text/calendar, application/rss+xml, application/atom+xml, application/feed+json, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5";

/** Only http(s), no credentials in the address: checked before any connection (the host is checked at connect). */
export function checkFeedUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SourceError("refused", "not an absolute URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new SourceError("refused", `only http and https addresses can be fetched, not ${url.protocol.replace(":", "")}`);
  if (url.username || url.password) throw new SourceError("refused", "an address with a user name or password cannot be fetched");
  url.hash = "";
  return url;
}

function charsetOf(contentType: string | null, head: Buffer): string {
  const fromHeader = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? "")?.[1];
  const fromXml = /^<\?xml[^>]*encoding\s*=\s*["']([\w.:-]+)["']/i.exec(head.subarray(0, 200).toString("latin1"))?.[1];
  return (fromHeader ?? fromXml ?? "utf-8").toLowerCase();
}

function decode(body: Buffer, contentType: string | null): string {
  try {
    return new TextDecoder(charsetOf(contentType, body)).decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

type Agents = { http: RequestFilteringHttpAgent; https: RequestFilteringHttpsAgent };
type Answer = { status: number; headers: http.IncomingHttpHeaders; body?: Buffer };
type Once = (url: URL, headers: Record<string, string>, signal: AbortSignal) => Promise<Answer>;

/** An answer as it arrives: a 200's body decompressed and counted, cut at `maxBytes`; any other status without its body. */
function receive(res: http.IncomingMessage, maxBytes: number, resolve: (answer: Answer) => void, reject: (err: unknown) => void): void {
  const status = res.statusCode ?? 0;
  if (status !== 200) {
    res.resume();
    return resolve({ status, headers: res.headers });
  }
  const declared = Number(res.headers["content-length"]);
  const encoding = String(res.headers["content-encoding"] ?? "identity").toLowerCase();
  if (encoding === "identity" && Number.isFinite(declared) && declared > maxBytes) {
    reject(new SourceError("too_large", `the feed is ${declared} bytes, more than the ${maxBytes} allowed`));
    return void res.destroy();
  }
  let stream: NodeJS.ReadableStream = res;
  if (encoding === "gzip" || encoding === "x-gzip") stream = res.pipe(zlib.createGunzip());
  else if (encoding === "deflate") stream = res.pipe(zlib.createInflate());
  else if (encoding === "br") stream = res.pipe(zlib.createBrotliDecompress());
  const chunks: Buffer[] = [];
  let size = 0;
  stream.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) {
      // Settle first: destroying the response makes it report an abort too.
      reject(new SourceError("too_large", `the feed is more than the ${maxBytes} bytes allowed`));
      res.destroy();
      (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
      return;
    }
    chunks.push(chunk);
  });
  stream.on("end", () => resolve({ status, headers: res.headers, body: Buffer.concat(chunks) }));
  stream.on("error", (err) => reject(stream === res ? err : new SourceError("invalid", `the body could not be decompressed: ${err.message}`)));
  res.on("error", (err) => reject(err));
  // A connection closed mid-body settles too (a promise settles once: after `end` this is a no-op).
  res.on("close", () => {
    if (!res.complete) reject(new Error("connection closed before the body was complete"));
  });
}

/** One request, no redirects followed: the answer's status, headers and (for 200) body. */
function requestOnce(agents: Agents, maxBytes: number, url: URL, headers: Record<string, string>, signal: AbortSignal, retried = false): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const lib = url.protocol === "https:" ? https : http;
    const req = lib.request(url, { method: "GET", headers, agent: url.protocol === "https:" ? agents.https : agents.http, signal }, (res) => receive(res, maxBytes, resolve, reject));
    req.on("error", (err: NodeJS.ErrnoException) => {
      // A kept-alive connection the server closed as we reused it (its idle timeout and our request
      // crossed): a GET is asked again once, on a new connection, as Node's docs advise (`reusedSocket`).
      if (!retried && req.reusedSocket && !signal.aborted && (err.code === "ECONNRESET" || err.code === "EPIPE")) {
        requestOnce(agents, maxBytes, url, headers, signal, true).then(resolve, reject);
        return;
      }
      reject(err);
    });
    req.end();
  });
}

function requestHeaders(userAgent: string, validators: Validators): Record<string, string> {
  const headers: Record<string, string> = { "User-Agent": userAgent, Accept: ACCEPT, "Accept-Encoding": "gzip, deflate, br" };
  if (validators.etag) headers["If-None-Match"] = validators.etag;
  if (validators.lastModified) headers["If-Modified-Since"] = validators.lastModified;
  return headers;
}

/** Asks `at.url`, following redirects (`at.url` is the hop being asked, for the error that may follow), and reads the answer. */
async function followRedirects(once: Once, at: { url: URL }, headers: Record<string, string>, signal: AbortSignal, maxRedirects: number): Promise<FeedFetchResult> {
  for (let hop = 0; ; hop++) {
    const res = await once(at.url, headers, signal);
    if (res.status === 304) return { status: "not-modified" };
    if ([301, 302, 303, 307, 308].includes(res.status) && res.headers.location) {
      if (hop >= maxRedirects) throw new SourceError("status", `more than ${maxRedirects} redirects`);
      // The next hop is checked like the first: scheme here, address at connect.
      at.url = checkFeedUrl(new URL(res.headers.location, at.url).href);
      continue;
    }
    if (res.status !== 200 || !res.body) throw new SourceError("status", `the server answered ${res.status}`);
    const contentType = typeof res.headers["content-type"] === "string" ? res.headers["content-type"] : null;
    const one = (h: string | string[] | undefined) => (typeof h === "string" ? h : null);
    return { status: "ok", body: decode(res.body, contentType), contentType, etag: one(res.headers.etag), lastModified: one(res.headers["last-modified"]), url: at.url.href };
  }
}

/** What a failed fetch says: its own SourceError, or the time limit, the caller's stop, a refused address or the network. */
function fetchError(err: unknown, raw: string, url: URL, timeout: AbortSignal, timeoutMs: number, outer: AbortSignal | undefined): SourceError {
  if (err instanceof SourceError) return err;
  const message = (err as Error).message ?? String(err);
  if (timeout.aborted) return new SourceError("timeout", `no complete answer within ${timeoutMs} ms`, { cause: err });
  if (outer?.aborted) return new SourceError("aborted", "the fetch was stopped", { cause: err });
  // Which hop was refused matters to whoever reads it: a public feed that redirects inside the network.
  const hop = url.href !== checkFeedUrl(raw).href ? ` (it redirected to ${url.href})` : "";
  if (/is not allowed/.test(message)) return new SourceError("refused", `the address is private, loopback or link-local (not on the public internet)${hop}`, { cause: err });
  return new SourceError("network", `could not be fetched: ${message}`, { cause: err });
}

export function createFeedFetcher(options: FeedFetchOptions): FeedFetcher {
  const { allowPrivate, maxBytes, timeoutMs, userAgent, maxRedirects = 5, allowAddresses = [] } = options;
  const agentOptions = { keepAlive: true, maxSockets: 16, allowPrivateIPAddress: allowPrivate, allowMetaIPAddress: false, allowIPAddressList: allowAddresses };
  const agents: Agents = { http: new RequestFilteringHttpAgent(agentOptions), https: new RequestFilteringHttpsAgent(agentOptions) };
  const once: Once = (url, headers, signal) => requestOnce(agents, maxBytes, url, headers, signal);

  return {
    async fetch(raw, validators = {}, outer) {
      const at = { url: checkFeedUrl(raw) };
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = outer ? AbortSignal.any([timeout, outer]) : timeout;
      try {
        return await followRedirects(once, at, requestHeaders(userAgent, validators), signal, maxRedirects);
      } catch (err) {
        throw fetchError(err, raw, at.url, timeout, timeoutMs, outer);
      }
    },
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
