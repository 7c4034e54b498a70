import { CACHE, type Operation } from "../operation.ts";
import { SubscribeRequest, SubscribeResponse } from "../subscribe.ts";

export const subscribeOperations = {
  subscribe: {
    operationId: "subscribe", method: "POST", path: "/api/subscribe", tags: ["Subscriptions"],
    summary: "Subscribe an email address to a city's daily newsletter",
    description: [
      "Stores the subscriber, sends a welcome email and queues the first daily digest (today's edition if the city has one, otherwise its next edition). Any U.S. place in the dataset can be subscribed to; the first subscriber turns it into a city.",
      "",
      "`slug`, `city` and `state` must name the same place: a slug that matches no U.S. place, or a `city`/`state` that disagrees with it, is `400 validation_error` with an issue on each offending field (`slug`, `city`, `state`). Malformed JSON is `invalid_json`; bodies over 16 KiB are `413 payload_too_large`.",
      "",
      "Subscribing again to the same city changes nothing (no duplicate, no second welcome); one address may follow several cities. Some requests are accepted without effect and answered exactly like a success: a filled `honeypot`, a disposable-mail domain, and an address that has unsubscribed, bounced or complained.",
      "",
      "Rate limit: 10 requests per client address per 10 minutes (a token bucket refilling one request a minute); beyond it, `429 rate_limited` with `Retry-After` in seconds. Reads are never rate limited.",
    ].join("\n"),
    body: SubscribeRequest,
    response: SubscribeResponse,
    errors: ["validation_error", "invalid_json", "payload_too_large", "rate_limited"],
    cache: CACHE.none,
    rateLimit: "subscribe",
    mcp: {
      tool: "subscribe_city", title: "Subscribe an email address to a city's newsletter",
      description: "Writes: stores the subscriber and sends a real welcome email to `email`, then the city's daily newsletter every morning. Only subscribe an address whose owner asked for it. `slug`, `city` and `state` must name the same U.S. place (find the slug with list_cities or get_city). Subscribing again changes nothing. Rate limited to 10 calls per client address per 10 minutes (`rate_limited`).",
      // Writes and sends mail (open world); a repeat changes nothing (idempotent); nothing is destroyed.
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
  },
} satisfies Record<string, Operation>;
