import crypto from "node:crypto";
import type { H3, H3Event } from "h3";
import { MailWebhookBody } from "../../src/contract/mail-webhooks.ts";
import { AppError, toFieldIssues } from "../../src/core/errors.ts";
import type { AppContext } from "../../src/services/context.ts";
import { handleMailEvents } from "../../src/services/suppressions.ts";
import { readJsonBody } from "../body.ts";
import { jsonWrite } from "../respond.ts";

/** `Authorization: Bearer ADMIN_TOKEN`; missing: 401, wrong: 403, none configured: 503. */
export function requireAdmin(ctx: AppContext, event: H3Event): void {
  const expected = ctx.config.adminToken;
  if (!expected) throw new AppError("service_misconfigured", "ADMIN_TOKEN is not configured on this server.");
  const header = event.req.headers.get("authorization");
  const m = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  if (!m) throw new AppError("unauthorized", "This endpoint needs an Authorization: Bearer token.", { headers: { "WWW-Authenticate": 'Bearer realm="citydaily-admin"' } });
  const digest = (s: string) => crypto.createHash("sha256").update(s).digest();
  if (!crypto.timingSafeEqual(digest(m[1]), digest(expected))) throw new AppError("forbidden", "This token may not use this endpoint.");
}

/**
 * Notifications from the mail provider (outside the public API): a hard bounce or a complaint
 * suppresses the address; a soft bounce is recorded in its history; a mail to the List-Unsubscribe
 * mailto address unsubscribes that subscription.
 */
export function mailWebhookRoutes(app: H3, ctx: AppContext): void {
  app.post("/webhooks/mail", async (event) => {
    requireAdmin(ctx, event);
    const parsed = MailWebhookBody.safeParse(await readJsonBody(event));
    if (!parsed.success) {
      const issues = toFieldIssues(parsed.error.issues);
      throw new AppError("validation_error", "Expected {type: bounce|complaint, email, permanent?, detail?}, {type: unsubscribe, token|subject} or {events: [...]}.", { issues });
    }
    const events = "events" in parsed.data ? parsed.data.events : [parsed.data];
    return jsonWrite(handleMailEvents(ctx, events));
  });
}
