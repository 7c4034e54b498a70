import type { H3Event } from "h3";
import { AppError } from "../src/core/errors.ts";
import type { AppContext } from "../src/services/context.ts";

/**
 * Token buckets per client address, in memory (one server process; a shared store can replace the
 * Map later without touching callers). Each address may burst `capacity` requests, then gets one
 * back every `windowSeconds / capacity` seconds. Only writes are limited; reads never are.
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

  /** Forgets addresses whose bucket has refilled: they are indistinguishable from new ones. */
  #prune(now: number): void {
    for (const [key, b] of this.#buckets) {
      if (b.tokens + (now - b.at) * this.#perMs >= this.#capacity) this.#buckets.delete(key);
    }
  }
}

/**
 * The client address: the socket peer, or, behind `trustProxyHops` proxies that each append to
 * X-Forwarded-For, the entry that many places from the right (left entries can be forged by the client).
 */
export function clientAddress(event: H3Event, trustProxyHops: number): string {
  const peer = event.req.ip ?? (event.req as { context?: { clientAddress?: string } }).context?.clientAddress ?? "unknown";
  if (trustProxyHops <= 0) return peer;
  const chain = (event.req.headers.get("x-forwarded-for") ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  return chain[chain.length - trustProxyHops] ?? chain[0] ?? peer;
}

/** Throws 429 `rate_limited` with Retry-After when the caller has used up its writes. */
export function enforceRateLimit(limiter: RateLimiter, event: H3Event, trustProxyHops: number, what: string): void {
  const verdict = limiter.take(clientAddress(event, trustProxyHops));
  if (!verdict.ok) {
    throw new AppError("rate_limited", `Too many ${what} requests from this address; retry in ${verdict.retryAfterSeconds} s.`, {
      headers: { "Retry-After": String(verdict.retryAfterSeconds) },
    });
  }
}

const subscribeLimiters = new WeakMap<AppContext, RateLimiter>();

/**
 * The subscribe bucket of this server (`SUBSCRIBE_RATE_LIMIT` per `SUBSCRIBE_RATE_WINDOW_SECONDS`),
 * shared by every way in: POST /api/subscribe and the MCP `subscribe_city` tool should both take from it.
 */
export function enforceSubscribeLimit(ctx: AppContext, event: H3Event): void {
  let limiter = subscribeLimiters.get(ctx);
  if (!limiter) subscribeLimiters.set(ctx, (limiter = new RateLimiter(ctx.config.mail.subscribeRateLimit, ctx.config.mail.subscribeRateWindowSeconds)));
  enforceRateLimit(limiter, event, ctx.config.mail.trustProxyHops, "subscribe");
}
