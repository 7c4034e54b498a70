/** Why a public source could not be had; the caller logs `kind` and goes on without it. */
export class SourceError extends Error {
  readonly kind: "timeout" | "network" | "status" | "invalid" | "refused" | "too_large" | "aborted";
  constructor(kind: SourceError["kind"], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SourceError";
    this.kind = kind;
  }
}

/**
 * GET a JSON document from a fixed, configured API (NWS, Open-Meteo): the whole exchange, body
 * included, is bounded by `timeoutMs` and by the caller's `signal`. Feeds, whose URLs come from
 * people, go through feeds/fetch.ts instead (address checks, size limit, conditional requests).
 */
export async function getJson(url: URL, options: { name: string; timeoutMs: number; headers?: Record<string, string>; signal?: AbortSignal; fetch?: typeof globalThis.fetch }): Promise<unknown> {
  const { name, timeoutMs, fetch = globalThis.fetch } = options;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, { signal, headers: options.headers });
    text = await res.text();
  } catch (err) {
    if (timeout.aborted) throw new SourceError("timeout", `${name} did not answer within ${timeoutMs} ms`, { cause: err });
    if (options.signal?.aborted) throw new SourceError("aborted", `${name}: request aborted`, { cause: err });
    // fetch's own message is only "fetch failed"; the reason (ENOTFOUND, ECONNREFUSED...) is its cause.
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new SourceError("network", `${name} could not be reached (${cause?.code ?? cause?.message ?? (err as Error).message})`, { cause: err });
  }
  if (!res.ok) throw new SourceError("status", `${name} answered ${res.status}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new SourceError("invalid", `${name}'s answer was not JSON`);
  }
}
