import fs from "node:fs";
import path from "node:path";
import type { H3, H3Event } from "h3";
import { Marked } from "marked";
import { PROJECT_ROOT } from "../../../src/config/paths.ts";
import { formatCents } from "../../../src/core/commerce/pricing.ts";
import { deadlineWords } from "../../../src/core/places/town-time.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { handlePaymentCallback } from "../../../src/services/commerce/payments.ts";
import { sweepCommerce } from "../../../src/services/commerce/listings.ts";
import { findLease } from "../../../src/store/commerce/leases.ts";
import { findOrder } from "../../../src/store/commerce/orders.ts";
import { readBodyText } from "../../http/body.ts";
import { htmlPage } from "../../http/html-page.ts";
import { escapeHtml as e } from "../../../src/lib/html.ts";

/**
 * Pages of the buying flow, outside /api, server-rendered with every value escaped:
 *   GET  /checkout/{session}          the local provider's hosted checkout page (what, price, Pay, Cancel)
 *   POST /checkout/{session}/pay      emits the signed callback (verified like Stripe's), then 303 to the success page
 *   POST /checkout/{session}/cancel   303 to the cancel page (the link stays open until it expires)
 *   GET  /purchase/done?lease= and /purchase/cancelled?lease=   a lease's success and cancel pages (both providers);
 *        `?order=` leads to the order's own page, /orders/{id}
 *   GET  /listing-policy              the listing policy (content/listing-policy.md)
 */
const ORDER_ID = /^lo_[0-9a-f-]{36}$/;
const LEASE_ID = /^tl_[0-9a-f-]{36}$/;
const SESSION_ID = /^cs_local_[0-9a-f-]{36}$/;

const notFound = (ctx: AppContext) => htmlPage(ctx, 404, "This checkout link is not valid", "<p>Check the link you were given, or start again from the listing or lease request.</p>");

async function formBody(event: H3Event): Promise<URLSearchParams> {
  return new URLSearchParams(await readBodyText(event).catch(() => ""));
}

const redirect = (to: string) => new Response(null, { status: 303, headers: { Location: to, "Cache-Control": "no-store" } });


/** The zone of the town a checkout is for, by its reference: a town lease or a listing order. */
function zoneOf(ctx: AppContext, reference: string): string | undefined {
  if (LEASE_ID.test(reference)) return findLease(ctx.db, reference)?.timezone;
  if (ORDER_ID.test(reference)) return findOrder(ctx.db, reference)?.timezone;
  return undefined;
}

export function checkoutPageRoutes(app: H3, ctx: AppContext): void {
  const hosted = () => ctx.payments.hosted;

  app.get("/checkout/:session", (event) => {
    const id = event.context.params!.session;
    const s = SESSION_ID.test(id) ? hosted()?.session(id) : undefined;
    if (!s) return notFound(ctx);
    const price = `${formatCents(s.amountCents)}${s.mode === "subscription" ? " a month" : ""}`;
    if (s.status !== "open") {
      return htmlPage(ctx, 200, s.status === "complete" ? "Already paid" : "This checkout has expired", s.status === "complete"
        ? `<p>${e(s.description)} is paid.</p><p><a href="${e(s.successUrl)}">See its status</a></p>`
        : `<p>The payment link for ${e(s.description)} ran out before it was paid. Nothing was charged.</p>`);
    }
    return htmlPage(ctx, 200, "Checkout", `<p>You are buying:</p>
<p><strong>${e(s.description)}</strong></p>
<p class="price" data-testid="price">${e(price)}</p>
<p class="status">${s.mode === "subscription" ? "Billed monthly until you cancel." : "One payment; no subscription."} This link is open until ${e(deadlineWords(s.expiresAt, zoneOf(ctx, s.reference)))}.</p>
<form method="post" action="/checkout/${e(s.id)}/pay">
<label for="email">Email</label>
<input id="email" name="email" type="email" required value="${e(s.email)}" autocomplete="email">
<p class="status">This is citydaily's built-in checkout for running without a payment provider: pressing Pay records the payment and charges no card.</p>
<div class="actions"><button type="submit">Pay ${e(price)}</button></div>
</form>
<form method="post" action="/checkout/${e(s.id)}/cancel"><button type="submit" class="secondary">Cancel</button></form>`);
  });

  app.post("/checkout/:session/pay", async (event) => {
    const id = event.context.params!.session;
    const h = hosted();
    const s = SESSION_ID.test(id) ? h?.session(id) : undefined;
    if (!h || !s) return notFound(ctx);
    const form = await formBody(event);
    const email = (form.get("email") ?? s.email).trim().slice(0, 254);
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
      return htmlPage(ctx, 400, "Checkout", `<p>Enter a valid email address.</p><p><a href="/checkout/${e(s.id)}">Back to the checkout</a></p>`);
    }
    const callback = h.pay(id, email);
    if (!callback) return redirect(`/checkout/${s.id}`);
    await handlePaymentCallback(ctx, callback.rawBody, callback.headers);
    return redirect(s.successUrl);
  });

  app.post("/checkout/:session/cancel", (event) => {
    const id = event.context.params!.session;
    const s = SESSION_ID.test(id) ? hosted()?.session(id) : undefined;
    return s ? redirect(s.cancelUrl) : notFound(ctx);
  });

  app.get("/purchase/done", (event) => resultPage(ctx, event, true));
  app.get("/purchase/cancelled", (event) => resultPage(ctx, event, false));

  let policyHtml: string | undefined;
  app.get("/listing-policy", () => {
    policyHtml ??= new Marked().parse(fs.readFileSync(path.join(PROJECT_ROOT, "content/listing-policy.md"), "utf8").replace(/^# .*\n/, ""), { async: false });
    return htmlPage(ctx, 200, "Listing policy", policyHtml, { headers: { "Cache-Control": "public, max-age=300" } });
  });
}

async function resultPage(ctx: AppContext, event: H3Event, paid: boolean): Promise<Response> {
  sweepCommerce(ctx);
  const orderId = event.url.searchParams.get("order") ?? "";
  const leaseId = event.url.searchParams.get("lease") ?? "";
  // Listing orders have their own page for people (api/routes/commerce/order-page.ts); links issued before it lead there.
  if (ORDER_ID.test(orderId)) return redirect(`/orders/${orderId}${paid ? "" : "?checkout=cancelled"}`);
  if (LEASE_ID.test(leaseId)) {
    const l = findLease(ctx.db, leaseId);
    if (!l) return notFound(ctx);
    return htmlPage(ctx, 200, paid ? "Thank you" : "Checkout cancelled", `<p>Town lease of <strong>${e(l.town_name)}, ${e(l.state_name)}</strong>: <span data-testid="status">${e(l.status)}</span>.</p>
${l.status === "active" ? "<p>You run this town now. <a href=\"/operator\">Open your operator desk</a> and sign in with the email you paid with.</p>" : paid ? "" : `<p>Nothing was charged. The town stays reserved for you until ${e(deadlineWords(l.reserved_until, l.timezone))}.</p>`}`);
  }
  return notFound(ctx);
}
