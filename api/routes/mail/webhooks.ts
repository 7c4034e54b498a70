import type { H3, H3Event } from "h3";
import { AppError } from "../../../src/core/errors.ts";
import type { FeedbackProvider } from "../../../src/integrations/mail/feedback-webhook.ts";
import { safeEqual } from "../../../src/integrations/mail/feedback-webhook.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { handleArfReport, handleProviderWebhook } from "../../../src/services/mail/feedback.ts";
import { requireAdmin } from "../../http/auth.ts";
import { readBodyText } from "../../http/body.ts";

/** A provider batches events (SendGrid up to a few thousand); a feedback report carries a whole message. */
const WEBHOOK_LIMIT_BYTES = 1024 * 1024;
const PROVIDERS: FeedbackProvider[] = ["ses", "sendgrid", "postmark", "mailgun"];

const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { "Content-Type": "application/json", "Cache-Control": "no-store" } });

/**
 * The mail providers' bounce and complaint webhooks (outside the public API, not in OpenAPI), one
 * per provider, each verified its own way on the raw body (src/integrations/mail/{provider}.ts),
 * and `/webhooks/mail/arf` for feedback-loop reports that arrive as mail. `/webhooks/mail` (our own
 * JSON, ADMIN_TOKEN) stays as it was.
 */
export function mailWebhookRoutes(app: H3, ctx: AppContext): void {
  for (const provider of PROVIDERS) {
    app.post(`/webhooks/mail/${provider}`, async (event) => {
      // Not configured: 503 before reading anything.
      if (!ctx.mailWebhooks[provider]) return handleProviderWebhook(ctx, provider, "", event.req.headers);
      const raw = await readBodyText(event, WEBHOOK_LIMIT_BYTES);
      return json(await handleProviderWebhook(ctx, provider, raw, event.req.headers));
    });
  }
  app.post("/webhooks/mail/arf", async (event) => {
    requireInboundAuth(ctx, event);
    return json(await handleArfReport(ctx, await readBodyText(event, WEBHOOK_LIMIT_BYTES)));
  });
}

/**
 * ADMIN_TOKEN as a bearer token, as for `/webhooks/mail`, or as the password of basic auth: the
 * inbound-mail services that post received mail (Postmark, Mailgun routes, SendGrid Inbound Parse)
 * can only put credentials in the URL.
 */
function requireInboundAuth(ctx: AppContext, event: H3Event): void {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(event.req.headers.get("authorization") ?? "");
  if (!basic || !ctx.config.adminToken) return requireAdmin(ctx, event);
  const decoded = Buffer.from(basic[1], "base64").toString("utf8");
  if (!safeEqual(decoded.slice(decoded.indexOf(":") + 1), ctx.config.adminToken)) throw new AppError("forbidden", "These credentials may not use this endpoint.");
}
