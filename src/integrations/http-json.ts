/** Why a public source could not be had; the caller logs `kind` and goes on without it. */
export class SourceError extends Error {
  readonly kind: "timeout" | "network" | "status" | "invalid" | "refused" | "too_large" | "aborted";
  /** The HTTP status, for `status` errors. */
  readonly status?: number;
  /** The provider's own explanation (Open-Meteo's `reason`, NWS's problem `detail`), when it gave one. */
  readonly reason?: string;
  /** `Retry-After`, in milliseconds, when the answer carried one. */
  readonly retryAfterMs?: number;
  constructor(kind: SourceError["kind"], message: string, options?: { cause?: unknown; status?: number; reason?: string; retryAfterMs?: number }) {
    super(message, options);
    this.name = "SourceError";
    this.kind = kind;
    if (options?.status !== undefined) this.status = options.status;
    if (options?.reason !== undefined) this.reason = options.reason;
    if (options?.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }
}

/** `Retry-After` as milliseconds from `now`: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

export interface JsonRequestOptions {
  name: string;
  timeoutMs: number;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  fetch?: typeof globalThis.fetch;
}

/** The validators of a conditional GET (from the last good answer). */
export interface Validators {
  etag?: string | null;
  lastModified?: string | null;
}

/** What a provider answers to a conditional request, parsed: its items and the validators to send next time. */
export type ConditionalItems<T> =
  | { status: "not-modified" }
  | { status: "ok"; items: T[]; validators: Required<Validators> };

export type ConditionalJson =
  | { status: "not-modified" }
  | { status: "ok"; body: unknown; etag: string | null; lastModified: string | null };

/**
 * GET a JSON document from a fixed, configured API (NWS, Open-Meteo): the whole exchange, body
 * included, is bounded by `timeoutMs` and by the caller's `signal`. Feeds, whose URLs come from
 * people, go through feeds/fetch.ts instead (address checks, size limit, conditional requests).
 */
export async function getJson(url: URL | string, options: JsonRequestOptions): Promise<unknown> {
  const r = await getJsonConditional(url, options, undefined);
  if (r.status === "not-modified") throw new SourceError("invalid", `${options.name} answered 304 to an unconditional request`);
  return r.body;
}

/** `getJson` with `If-None-Match` / `If-Modified-Since` from `validators`: a 304 answers `not-modified`. */
export async function getJsonConditional(url: URL | string, options: JsonRequestOptions, validators: Validators | undefined): Promise<ConditionalJson> {
  const { name, timeoutMs, fetch = globalThis.fetch } = options;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  const headers: Record<string, string> = { ...options.headers };
  if (validators?.etag) headers["If-None-Match"] = validators.etag;
  if (validators?.lastModified) headers["If-Modified-Since"] = validators.lastModified;
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, { signal, headers });
    text = await res.text();
  } catch (err) {
    if (timeout.aborted) throw new SourceError("timeout", `${name} did not answer within ${timeoutMs} ms`, { cause: err });
    if (options.signal?.aborted) throw new SourceError("aborted", `${name}: request aborted`, { cause: err });
    // fetch's own message is only "fetch failed"; the reason (ENOTFOUND, ECONNREFUSED...) is its cause.
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new SourceError("network", `${name} could not be reached (${cause?.code ?? cause?.message ?? (err as Error).message})`, { cause: err });
  }
  if (res.status === 304 && validators) return { status: "not-modified" };
  if (!res.ok) {
    // Open-Meteo explains its errors as {"error": true, "reason": "..."}; NWS as problem+json `detail`.
    let reason: string | undefined;
    try {
      const body = JSON.parse(text) as { reason?: unknown; detail?: unknown };
      const r = typeof body?.reason === "string" ? body.reason : typeof body?.detail === "string" ? body.detail : undefined;
      if (r) reason = r.slice(0, 200);
    } catch {
      // an HTML error page: no reason
    }
    const wait = retryAfterMs(res.headers.get("retry-after"));
    throw new SourceError("status", `${name} answered ${res.status}${reason ? `: ${reason}` : ""}`, {
      status: res.status, ...(reason ? { reason } : {}), ...(wait !== undefined ? { retryAfterMs: wait } : {}),
    });
  }
  try {
    return { status: "ok", body: JSON.parse(text), etag: res.headers.get("etag"), lastModified: res.headers.get("last-modified") };
  } catch {
    throw new SourceError("invalid", `${name}'s answer was not JSON`);
  }
}
