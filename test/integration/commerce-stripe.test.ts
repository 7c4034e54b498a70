import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";
import { StripeStandIn } from "../helpers/stripe-stand-in.ts";
import { EVENT, postCallback, problemOf, stripeEvent } from "../helpers/commerce.ts";

// Stripe mode (STRIPE_SECRET_KEY set) against a local stand-in of Stripe's API: the request shapes
// the stripe SDK sends for listings (mode payment) and leases (mode subscription), callbacks signed
// with STRIPE_WEBHOOK_SECRET by the stripe library's own helper, and the fee Stripe reports.

const NOW = "2026-11-22T12:00:00.000Z";
const WEBHOOK_SECRET = "whsec_test_standin";
let stripe: StripeStandIn;
let sink: SmtpSink;
let server: TestServer;

beforeAll(async () => {
  stripe = await new StripeStandIn().start();
  sink = await new SmtpSink().start();
  server = await startTestServer({
    SMTP_URL: sink.url, MAIL_SENDER: "off", NOW, SUBSCRIBE_RATE_LIMIT: "1000",
    STRIPE_SECRET_KEY: "sk_test_standin", STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_URL: stripe.url,
  });
  addSubscriber(server.ctx.db, "boise-idaho", "reader@example.org");
});
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
  await stripe?.stop();
});

const completed = (session: Record<string, any>, extra: Record<string, unknown>) =>
  stripeEvent("checkout.session.completed", { ...session, status: "complete", payment_status: "paid", ...extra });

describe("Stripe mode", () => {
  it("a lease is a subscription-mode Checkout Session; the callback activates it", async () => {
    const res = await server.post("/api/operator-actions", { action: "guest-checkout", city: "Boise", state: "Idaho", email: "op@example.com" });
    expect(res.status).toBe(200);
    const lease = await res.json();
    expect(lease.checkoutUrl).toMatch(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/);
    const req = stripe.requests.at(-1)!;
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/v1/checkout/sessions");
    expect(req.headers.authorization).toBe("Bearer sk_test_standin");
    expect(req.headers["idempotency-key"]).toBe(`checkout-${lease.leaseId}`);
    const f = Object.fromEntries(req.form);
    expect(f).toMatchObject({
      mode: "subscription", customer_email: "op@example.com", client_reference_id: lease.leaseId, "metadata[order_id]": lease.leaseId,
      "subscription_data[metadata][order_id]": lease.leaseId, "line_items[0][quantity]": "1",
      "line_items[0][price_data][currency]": "usd", "line_items[0][price_data][unit_amount]": "1000", "line_items[0][price_data][recurring][interval]": "month",
      success_url: `${server.url}/purchase/done?lease=${lease.leaseId}`, cancel_url: `${server.url}/purchase/cancelled?lease=${lease.leaseId}`,
    });
    expect(f["payment_intent_data[metadata][order_id]"]).toBeUndefined();
    // Stripe accepts an expiry of 30 minutes to 24 hours; the reservation is 30 minutes.
    expect(Number(f.expires_at) - Math.floor(Date.now() / 1000)).toBeGreaterThanOrEqual(30 * 60);

    const session = stripe.sessions().find((s) => s.id === stripe.sessions().at(-1)!.id)!;
    const cb = await postCallback(server, completed(session, { subscription: "sub_standin_1", customer_details: { email: "op@example.com" } }), { secret: WEBHOOK_SECRET });
    expect(cb.status).toBe(200);
    expect((await (await server.get("/api/territories")).json()).claimed).toEqual([{ slug: "boise-idaho", city: "Boise", state: "Idaho" }]);
    await sendPendingMail(server.ctx);
    expect(sink.messages.find((m) => m.to.includes("op@example.com"))?.parsed.subject).toBe("You now operate the Boise, Idaho daily");
  });

  it("a lease asked for with action, city and state alone (the spec's body): Stripe's page collects the email, and the callback's becomes the operator", async () => {
    const res = await server.post("/api/operator-actions", { action: "guest-checkout", city: "Meridian", state: "Idaho" });
    expect(res.status).toBe(200);
    const lease = await res.json();
    const f = Object.fromEntries(stripe.requests.at(-1)!.form);
    expect(f).toMatchObject({ mode: "subscription", client_reference_id: lease.leaseId });
    expect(f.customer_email).toBeUndefined(); // nothing prefilled: Stripe asks the buyer
    const session = stripe.sessions().at(-1)!;
    const cb = await postCallback(server, completed(session, { subscription: "sub_standin_2", customer_details: { email: "Meridian-Op@example.com" } }), { secret: WEBHOOK_SECRET });
    expect(cb.status).toBe(200);
    expect((await (await server.get("/api/territories")).json()).claimed).toContainEqual({ slug: "meridian-idaho", city: "Meridian", state: "Idaho" });
    await sendPendingMail(server.ctx);
    expect(sink.messages.find((m) => m.to.includes("meridian-op@example.com"))?.parsed.subject).toBe("You now operate the Meridian, Idaho daily");
  });

  it("the buying page for people sends the buyer to Stripe's page, whose success URL is the order page", async () => {
    // Browsers apply the page's form-action to the redirect after the post: Stripe's page must be in it.
    for (const path of ["/advertise/boise-idaho", "/lease/caldwell-idaho"]) {
      expect((await fetch(`${server.url}${path}`)).headers.get("content-security-policy"), path).toContain("form-action 'self' https://checkout.stripe.com;");
    }
    const res = await fetch(`${server.url}/advertise/boise-idaho`, {
      method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ kind: "business", tier: "standard", title: "Rosemary Bakery", description: "Sourdough.", address: "112 N 8th St",
        category: "Bakery", url: "https://rosemary-bakery.example/", buyerEmail: "owner@example.com", action: "buy" }).toString(),
    });
    expect(res.status).toBe(303);
    const session = stripe.sessions().at(-1)!;
    expect(res.headers.get("location")).toBe(session.url);
    const f = Object.fromEntries(stripe.requests.at(-1)!.form);
    expect(f.success_url).toMatch(new RegExp(`^${server.url}/orders/lo_[0-9a-f-]{36}$`));
    expect(f.customer_email).toBe("owner@example.com");
  });

  it("a listing is a payment-mode session; the fee in the ledger is the one Stripe reports", async () => {
    const body = await (await server.post("/api/listing-checkout", { ...EVENT, tier: "featured" })).json();
    const f = Object.fromEntries(stripe.requests.at(-1)!.form);
    expect(f).toMatchObject({
      mode: "payment", customer_email: EVENT.buyerEmail, "metadata[order_id]": body.orderId, "payment_intent_data[metadata][order_id]": body.orderId,
      "line_items[0][price_data][unit_amount]": "2500", "line_items[0][price_data][product_data][name]": "Event listing (featured) in Boise, Idaho",
      success_url: `${server.url}/orders/${body.orderId}`, cancel_url: `${server.url}/orders/${body.orderId}?checkout=cancelled`,
    });
    expect(f["line_items[0][price_data][recurring][interval]"]).toBeUndefined();
    expect(stripe.requests.at(-1)!.headers["idempotency-key"]).toBe(`checkout-${body.orderId}`);

    const session = stripe.sessions().at(-1)!;
    const cb = await postCallback(server, completed(session, { payment_intent: "pi_standin42", customer_details: { email: EVENT.buyerEmail } }), { secret: WEBHOOK_SECRET });
    expect(cb.status).toBe(200);
    const lookup = stripe.requests.at(-1)!;
    expect(lookup.method).toBe("GET");
    expect(lookup.path).toBe("/v1/payment_intents/pi_standin42");
    expect((await (await server.get(`/api/listing-order?id=${body.orderId}`)).json()).status).toBe("published");
    // (2500 - 111) / 2 = 1194.5 -> 1194.
    expect(server.ctx.db.prepare("SELECT fee_cents, amount_cents FROM ledger_entries WHERE order_id = ?").get(body.orderId)).toEqual({ fee_cents: 111, amount_cents: 1194 });
  });

  it("refuses callbacks not signed with STRIPE_WEBHOOK_SECRET (the local secret is not accepted)", async () => {
    const res = await postCallback(server, stripeEvent("checkout.session.completed", { id: "cs_x", object: "checkout.session" }));
    expect(res.status).toBe(403);
    expect((await problemOf(res)).code).toBe("forbidden");
  });

  it("when Stripe fails: 502 upstream_error, the town is not left reserved and the order gets no link", async () => {
    stripe.failWith = 500;
    try {
      const lease = await server.post("/api/operator-actions", { action: "guest-checkout", city: "Nampa", state: "Idaho", email: "op@example.com" });
      expect(lease.status).toBe(502);
      expect((await problemOf(lease)).code).toBe("upstream_error");
      expect((await (await server.get("/api/territories?city=Nampa&state=Idaho")).json()).quote.available).toBe(true);
      const listing = await server.post("/api/listing-checkout", EVENT);
      expect((await problemOf(listing)).code).toBe("upstream_error");
    } finally {
      stripe.failWith = undefined;
    }
  });
});
