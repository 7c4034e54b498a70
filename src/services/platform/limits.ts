import type { Config } from "../../config/load.ts";
import type { LimiterName } from "../../contract/operation.ts";
import { AppError } from "../../core/errors.ts";
import { RateLimiter } from "../../lib/rate-limiter.ts";

/** The write limiters of one running app, shared by every way in (HTTP routes, MCP tools). */
export type Limits = Record<LimiterName, RateLimiter>;

const WHAT: Record<LimiterName, string> = { subscribe: "subscribe", checkout: "checkout", operatorSignIn: "sign-in", oauthRegister: "client registration", oauthToken: "token", oauthClientDocument: "client metadata document" };

export function createLimits(config: Config): Limits {
  const { subscribeRateLimit, subscribeRateWindowSeconds } = config.mail;
  return {
    subscribe: new RateLimiter(subscribeRateLimit, subscribeRateWindowSeconds),
    // Purchases share the subscribe allowance's shape: a burst, then one a minute.
    checkout: new RateLimiter(subscribeRateLimit, subscribeRateWindowSeconds),
    // Sign-in links, counted per email address and client: 5 a burst, then one every 3 minutes, so no
    // client can flood an operator's inbox, none can lock the operator out from elsewhere, and the
    // answer is the same for every address.
    operatorSignIn: new RateLimiter(5, 900),
    // The authorization server, per client address: 10 client registrations, then one every 6 minutes
    // (a client registers once per server; many are someone filling the table); 60 token requests,
    // then one a second (a client asks one per hour per connection, more only when something is wrong).
    oauthRegister: new RateLimiter(10, 3600),
    oauthToken: new RateLimiter(60, 60),
    // Client metadata documents fetched (src/services/oauth/client-documents.ts): a document is
    // another way to register, so the registrations' allowance; one fetched within ten minutes is free.
    oauthClientDocument: new RateLimiter(10, 3600),
  };
}

/** Takes one token for `clientAddress`, or throws 429 `rate_limited` with Retry-After. */
export function takeToken(limits: Limits, name: LimiterName, clientAddress: string): void {
  const verdict = limits[name].take(clientAddress);
  if (!verdict.ok) {
    throw new AppError("rate_limited", `Too many ${WHAT[name]} requests from this address; retry in ${verdict.retryAfterSeconds} s.`, {
      headers: { "Retry-After": String(verdict.retryAfterSeconds) },
    });
  }
}
