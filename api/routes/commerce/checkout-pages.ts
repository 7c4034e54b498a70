import type { H3, H3Event } from "h3";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { cancelHostedCheckout, hostedCheckout, listingPolicy, payHostedCheckout, purchaseResult } from "../../../src/services/commerce/buyer-pages.ts";
import { readBodyText } from "../../http/body.ts";
import { viewPage } from "../../http/html-page.ts";
import "../../../src/site/pages/commerce.ts";

/**
 * Pages of the buying flow, outside /api (src/pages/on-request/commerce/):
 *   GET  /checkout/{session}          the local provider's hosted checkout page (what, price, Pay, Cancel)
 *   POST /checkout/{session}/pay      emits the signed callback (verified like Stripe's), then 303 to the success page
 *   POST /checkout/{session}/cancel   303 to the cancel page (the link stays open until it expires)
 *   GET  /purchase/done?lease= and /purchase/cancelled?lease=   a lease's success and cancel pages (both providers);
 *        `?order=` leads to the order's own page, /orders/{id}
 *   GET  /listing-policy              the listing policy (content/listing-policy.md)
 */
const notFound = (ctx: AppContext) => viewPage(ctx, 404, "commerce/missing", { what: "checkout" });

const redirect = (to: string) => new Response(null, { status: 303, headers: { Location: to, "Cache-Control": "no-store" } });

async function formBody(event: H3Event): Promise<URLSearchParams> {
  return new URLSearchParams(await readBodyText(event).catch(() => ""));
}

export function checkoutPageRoutes(app: H3, ctx: AppContext): void {
  app.get("/checkout/:session", (event) => {
    const view = hostedCheckout(ctx, event.context.params!.session);
    return view ? viewPage(ctx, 200, "commerce/checkout", view) : notFound(ctx);
  });

  app.post("/checkout/:session/pay", async (event) => {
    const answer = await payHostedCheckout(ctx, event.context.params!.session, (await formBody(event)).get("email"));
    if (!answer) return notFound(ctx);
    return "to" in answer ? redirect(answer.to) : viewPage(ctx, 400, "commerce/checkout", answer.view);
  });

  app.post("/checkout/:session/cancel", (event) => {
    const to = cancelHostedCheckout(ctx, event.context.params!.session);
    return to ? redirect(to) : notFound(ctx);
  });

  app.get("/purchase/done", (event) => resultPage(ctx, event, true));
  app.get("/purchase/cancelled", (event) => resultPage(ctx, event, false));

  app.get("/listing-policy", () => viewPage(ctx, 200, "commerce/listing-policy", listingPolicy(), { headers: { "Cache-Control": "public, max-age=300" } }));
}

function resultPage(ctx: AppContext, event: H3Event, paid: boolean): Promise<Response> | Response {
  const ref = { order: event.url.searchParams.get("order") ?? "", lease: event.url.searchParams.get("lease") ?? "" };
  const answer = purchaseResult(ctx, ref, paid);
  if (!answer) return notFound(ctx);
  return "to" in answer ? redirect(answer.to) : viewPage(ctx, 200, "commerce/purchase", answer.view);
}
