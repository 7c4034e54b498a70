/**
 * Token buckets per key (a client address), in memory (one server process; a shared store can
 * replace the Map later without touching callers). Each key may burst `capacity` requests, then gets
 * one back every `windowSeconds / capacity` seconds.
 */
export class RateLimiter {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  readonly #capacity: number;
  readonly #perMs: number;
  readonly #now: () => number;

  constructor(capacity: number, windowSeconds: number, now: () => number = Date.now) {
    this.#capacity = capacity;
    this.#perMs = capacity / (windowSeconds * 1000);
    this.#now = now;
  }

  /** Takes one token; when none is left, returns how many seconds until one is. */
  take(key: string): { ok: true } | { ok: false; retryAfterSeconds: number } {
    const now = this.#now();
    const b = this.#buckets.get(key) ?? { tokens: this.#capacity, at: now };
    b.tokens = Math.min(this.#capacity, b.tokens + (now - b.at) * this.#perMs);
    b.at = now;
    this.#buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      if (this.#buckets.size > 100_000) this.#prune(now);
      return { ok: true };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / this.#perMs / 1000)) };
  }

  /** Forgets keys whose bucket has refilled: they are indistinguishable from new ones. */
  #prune(now: number): void {
    for (const [key, b] of this.#buckets) {
      if (b.tokens + (now - b.at) * this.#perMs >= this.#capacity) this.#buckets.delete(key);
    }
  }
}
