import { CACHE, IDEMPOTENCY_HTTP, type Operation } from "../operation.ts";
import { SubscribeRequest, SubscribeResponse } from "../subscribe.ts";

export const subscribeOperations = {
  subscribe: {
    operationId: "subscribe", method: "POST", idempotent: true, path: "/api/subscribe", tags: ["Subscriptions"],
    summary: "Subscribe an email address to a city's daily newsletter",
    description: [
      "Stores the subscriber, sends a welcome email and queues the first daily digest (today's edition if the city has one, otherwise its next edition). Any U.S. place in the dataset can be subscribed to; the first subscriber turns it into a city.",
      "",
      "`slug`, `city` and `state` must name the same place: a slug that matches no U.S. place, or a `city`/`state` that disagrees with it, is `400 validation_error` with an issue on each offending field (`slug`, `city`, `state`). Malformed JSON is `invalid_json`; bodies over 16 KiB are `413 payload_too_large`.",
      "",
      "Subscribing again to the same city changes nothing (no duplicate, no second welcome); one address may follow several cities. Some requests are accepted without effect and answered exactly like a success: a filled `honeypot`, a disposable-mail domain, and an address that has unsubscribed, bounced or complained.",
      "",
      "Rate limit: 10 requests per client address per 10 minutes (a token bucket refilling one request a minute); beyond it, `429 rate_limited` with `Retry-After` in seconds. Reads are never rate limited.",
      "",
      IDEMPOTENCY_HTTP,
    ].join("\n"),
    body: SubscribeRequest,
    response: SubscribeResponse,
    errors: ["validation_error", "invalid_json", "payload_too_large", "rate_limited"],
    cache: CACHE.none,
    rateLimit: "subscribe",
    mcp: {
      tool: "subscribe_city", title: "Subscribe an email address to a city's newsletter",
      description: "Writes: subscribes `email` to the daily newsletter of the town `slug` (any U.S. place; the first subscriber starts it) and sends a real welcome email, so only for the address of a reader who asked for it (pass an `idempotencyKey` to retry safely).",
      // A web form's fields (honeypot, attribution) are not the model's to fill.
      input: { omit: ["honeypot", "referrer", "ref", "utm_source", "utm_medium", "utm_campaign", "landing_path"], optional: ["city", "state"] },
      // Writes and sends mail (open world); a repeat changes nothing (idempotent); nothing is destroyed.
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
  },
} satisfies Record<string, Operation>;
