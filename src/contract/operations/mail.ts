import { z } from "zod";
import { MailWebhookBody } from "../mail-webhooks.ts";
import { CACHE, type Operation } from "../operation.ts";

export const mailOperations = {
  handleMailEvents: {
    operationId: "handleMailEvents", method: "POST", path: "/webhooks/mail", tags: ["Admin"],
    summary: "Bounce, complaint and mailto-unsubscribe notifications from the mail provider",
    description: "`{type: bounce|complaint, email, permanent?, detail?}`, `{type: unsubscribe, token|subject}` or `{events: [...]}` (up to 1000). Hard bounces and complaints suppress the address; soft bounces, and bounces whose detail says the sender was refused (blocked, throttled, DMARC, 5.7.x), are recorded only.",
    body: MailWebhookBody,
    response: z.object({ processed: z.int(), suppressed: z.int(), unsubscribed: z.int() }),
    errors: ["validation_error", "unauthorized", "forbidden", "service_misconfigured"],
    cache: CACHE.none,
    auth: "admin",
    visibility: "internal",
  },
} satisfies Record<string, Operation>;
