import { SourceError } from "./http-json.ts";

// A GET of a JSON document from a fixed, configured API that is asked once per morning run (USGS,
// OpenFEMA): the validators of the last good answer are sent back (If-None-Match, If-Modified-Since)
// so an unchanged document costs a 304, and a refusal's Retry-After is handed to the caller's
// circuit breaker, which waits that long before asking again.

export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

export type ConditionalAnswer =
  | { status: "ok"; body: unknown; validators: Validators }
  | { status: "not-modified" };

/** A refusal (429, 503...) or failure whose answer said when to come back. */
export class ProviderError extends SourceError {
  /** `retryAfterMs` (SourceError's): from Retry-After (seconds or an HTTP date), in ms from the answer. */
  constructor(kind: SourceError["kind"], message: string, retryAfterMs: number | null, options?: { cause?: unknown }) {
    super(kind, message, { ...options, ...(retryAfterMs !== null ? { retryAfterMs } : {}) });
    this.name = "ProviderError";
  }
}

/** Retry-After as ms from `now`: delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now: Date): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const t = Date.parse(v);
  return Number.isFinite(t) ? Math.max(0, t - now.getTime()) : null;
}

export async function getConditionalJson(url: URL, options: {
  name: string;
  timeoutMs: number;
  validators?: Validators | null;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  fetch?: typeof globalThis.fetch;
  now?: () => Date;
}): Promise<ConditionalAnswer> {
  const { name, timeoutMs, fetch = globalThis.fetch, now = () => new Date() } = options;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  const headers: Record<string, string> = { Accept: "application/json", ...options.headers };
  if (options.validators?.etag) headers["If-None-Match"] = options.validators.etag;
  if (options.validators?.lastModified) headers["If-Modified-Since"] = options.validators.lastModified;
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, { signal, headers });
    text = await res.text(); // under the same signal: a body that trickles in is cut off too
  } catch (err) {
    if (options.signal?.aborted) throw new ProviderError("aborted", `${name}: request aborted`, null, { cause: err });
    if (timeout.aborted) throw new ProviderError("timeout", `${name} did not answer within ${timeoutMs} ms`, null, { cause: err });
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new ProviderError("network", `${name} could not be reached (${cause?.code ?? cause?.message ?? (err as Error).message})`, null, { cause: err });
  }
  if (res.status === 304) return { status: "not-modified" };
  if (!res.ok) throw new ProviderError("status", `${name} answered ${res.status}`, retryAfterMs(res.headers.get("retry-after"), now()));
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ProviderError("invalid", `${name}'s answer was not JSON`, null);
  }
  return { status: "ok", body, validators: { etag: res.headers.get("etag"), lastModified: res.headers.get("last-modified") } };
}
