import type { H3 } from "h3";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { handlePaymentCallback } from "../../../src/services/commerce/payments.ts";
import { readBodyText } from "../../http/body.ts";

/** Provider events are a few KiB; this leaves room without accepting arbitrary uploads. */
const CALLBACK_LIMIT_BYTES = 256 * 1024;

/**
 * POST /webhooks/payments: the payment provider's signed callback (not part of the public API, not
 * in OpenAPI). The raw body is verified by the provider (stripe's constructEvent); failures are
 * problem+json through AppError (401 unsigned, 403 tampered or stale). 200 `{received, duplicate}`
 * for every verified event, including replays, which change nothing.
 */
export function paymentWebhookRoutes(app: H3, ctx: AppContext): void {
  app.post("/webhooks/payments", async (event) => {
    const raw = await readBodyText(event, CALLBACK_LIMIT_BYTES);
    const result = await handlePaymentCallback(ctx, raw, event.req.headers);
    return new Response(JSON.stringify(result), { status: 200, headers: { "Content-Type": "application/json", "Cache-Control": "no-store" } });
  });
}
