import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { EVENT, postCallback, stripeEvent } from "../helpers/commerce.ts";
import { csrfOf, getWith, postForm, signIn, type Jar } from "../helpers/operator.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";
import { StripeStandIn } from "../helpers/stripe-stand-in.ts";

// Operators' payouts in Stripe mode against the stand-in of Stripe's API: Connect onboarding from
// the desk, a transfer of the share of each paid listing (charge as source_transaction, idempotency
// key per order), accrual before the account can be paid, reversals on refund; the ledger and the
// transfers agree after refunds and replayed callbacks. Then the local mode's payouts report.

const NOW = "2026-11-22T12:00:00.000Z";
const WEBHOOK_SECRET = "whsec_test_standin";
const OP = "payee@example.com";
let stripe: StripeStandIn;
let sink: SmtpSink;
let server: TestServer;
let jar: Jar;

const ledgerBalance = () => server.ctx.db.prepare("SELECT IFNULL(SUM(amount_cents), 0) FROM ledger_entries").pluck().get() as number;
const callback = (event: unknown) => postCallback(server, event, { secret: WEBHOOK_SECRET });

/** A listing bought and paid through Stripe Checkout (the stand-in makes the session; we send Stripe's callback). */
async function paidListing(title: string, pi: string, stripeDownAtPayment = false): Promise<{ orderId: string; event: ReturnType<typeof stripeEvent> }> {
  const body = await (await server.post("/api/listing-checkout", { ...EVENT, tier: "featured", title, url: `https://${pi}.example.com/` })).json();
  const session = stripe.sessions().at(-1)!;
  expect(session.client_reference_id).toBe(body.orderId);
  const event = stripeEvent("checkout.session.completed", { ...session, status: "complete", payment_status: "paid", payment_intent: pi, customer_details: { email: EVENT.buyerEmail } });
  if (stripeDownAtPayment) stripe.failWith = 500;
  try {
    // The callback is acknowledged even when the transfer cannot be made now.
    expect((await callback(event)).status).toBe(200);
  } finally {
    stripe.failWith = undefined;
  }
  return { orderId: body.orderId, event };
}

beforeAll(async () => {
  stripe = await new StripeStandIn().start();
  sink = await new SmtpSink().start();
  server = await startTestServer({
    SMTP_URL: sink.url, MAIL_SENDER: "off", NOW, SUBSCRIBE_RATE_LIMIT: "1000",
    STRIPE_SECRET_KEY: "sk_test_standin", STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_URL: stripe.url,
    STRIPE_CONNECT_WEBHOOK_SECRET: "whsec_connect_standin",
  });
  addSubscriber(server.ctx.db, "boise-idaho", "reader@example.org");
  await server.post("/api/operator-actions", { action: "guest-checkout", city: "Boise", state: "Idaho", email: OP });
  const session = stripe.sessions().at(-1)!;
  await callback(stripeEvent("checkout.session.completed", { ...session, status: "complete", payment_status: "paid", subscription: "sub_payee1", customer_details: { email: OP } }));
  jar = await signIn(server, sink, OP);
}, 30_000);
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
  await stripe?.stop();
});

describe("payouts through Stripe Connect", () => {
  let account = "";
  let first = "";

  it("accrues shares while no account is connected, then connects an Express account from the desk", async () => {
    first = (await paidListing("Before connecting", "pi_first")).orderId;
    // 2500 - 111 (the fee the stand-in reports) = 2389; half = 1194.
    expect(ledgerBalance()).toBe(1194);
    expect(stripe.requests.filter((r) => r.path === "/v1/transfers")).toHaveLength(0);

    const desk = await (await getWith(jar, `${server.url}/operator/towns/boise-idaho`)).text();
    expect(desk).toContain("Connect a payout account with Stripe");
    const res = await postForm(jar, `${server.url}/operator/payouts/connect`, { csrf: csrfOf(desk) });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toMatch(/^https:\/\/connect\.stripe\.com\/setup\/e\/acct_\w+\//);
    const create = stripe.requests.find((r) => r.path === "/v1/accounts")!;
    expect(Object.fromEntries(create.form)).toMatchObject({ type: "express", email: OP, country: "US", "capabilities[transfers][requested]": "true" });
    expect(create.headers["idempotency-key"]).toBe(`connect-account-${OP}`);
    account = stripe.accounts()[0].id;
    const link = Object.fromEntries(stripe.requests.filter((r) => r.path === "/v1/account_links").at(-1)!.form);
    expect(link).toEqual({ account, type: "account_onboarding", refresh_url: `${server.url}/operator/payouts/refresh`, return_url: `${server.url}/operator/payouts/return` });

    // Back before finishing Stripe's questions: still accruing, nothing moved.
    const back = await getWith(jar, `${server.url}/operator/payouts/return`);
    expect(back.headers.get("location")).toBe("/operator?done=payouts-pending");
    expect(stripe.transfers()).toHaveLength(0);
    // Asking again reuses the account (one per operator).
    await postForm(jar, `${server.url}/operator/payouts/connect`, { csrf: csrfOf(desk) });
    expect(stripe.accounts()).toHaveLength(1);
  });

  it("pays what accrued once the account can receive payouts, with the charge as source_transaction", async () => {
    stripe.completeOnboarding(account);
    const back = await getWith(jar, `${server.url}/operator/payouts/return`);
    expect(back.headers.get("location")).toBe("/operator?done=payouts-on");
    const req = stripe.requests.filter((r) => r.path === "/v1/transfers");
    expect(req).toHaveLength(1);
    expect(Object.fromEntries(req[0].form)).toEqual({
      amount: "1194", currency: "usd", destination: account, source_transaction: "ch_first", transfer_group: first, "metadata[order_id]": first,
    });
    expect(req[0].headers["idempotency-key"]).toBe(`transfer-${first}`);
    expect(stripe.netTransferred(account)).toBe(ledgerBalance());
  });

  it("transfers each new share at once; replayed callbacks move nothing twice; a refund reverses the transfer", async () => {
    const second = await paidListing("After connecting", "pi_second");
    expect(stripe.transfers()).toHaveLength(2);
    expect(stripe.netTransferred(account)).toBe(2 * 1194);
    expect((await (await callback(second.event)).json())).toMatchObject({ duplicate: true });
    expect(stripe.transfers()).toHaveLength(2);

    const refund = stripeEvent("charge.refunded", { id: "ch_second", object: "charge", payment_intent: "pi_second", amount_refunded: 2500, refunded: true });
    expect((await callback(refund)).status).toBe(200);
    expect((await callback(refund)).status).toBe(200);
    const reversals = stripe.requests.filter((r) => /^\/v1\/transfers\/tr_\w+\/reversals$/.test(r.path));
    expect(reversals).toHaveLength(1);
    expect(Object.fromEntries(reversals[0].form)).toEqual({ amount: "1194", "metadata[order_id]": second.orderId });
    expect(reversals[0].headers["idempotency-key"]).toBe(`transfer-reversal-${second.orderId}`);
    expect(ledgerBalance()).toBe(1194);
    expect(stripe.netTransferred(account)).toBe(ledgerBalance());

    // Refunded before it was ever transferred: nothing to move (Stripe failing at that moment).
    const third = await paidListing("Refunded while Stripe was down", "pi_third", true);
    expect(stripe.transfers()).toHaveLength(2);
    await callback(stripeEvent("charge.refunded", { id: "ch_third", object: "charge", payment_intent: "pi_third", amount_refunded: 2500, refunded: true }));
    expect(stripe.transfers()).toHaveLength(2);
    expect(stripe.netTransferred(account)).toBe(ledgerBalance());
    expect(server.ctx.db.prepare("SELECT COUNT(*) FROM payout_transfers WHERE order_id = ?").pluck().get(third.orderId)).toBe(0);

    // A transfer that failed is made at the next settlement.
    await paidListing("Paid while Stripe was down", "pi_fourth", true);
    expect(stripe.netTransferred(account)).toBe(1194);
    await paidListing("Paid after Stripe came back", "pi_fifth");
    expect(stripe.transfers()).toHaveLength(4);
    expect(stripe.netTransferred(account)).toBe(ledgerBalance());
    // (While Stripe was down the fee lookup failed too: those listings carry the standard fee, 103 cents; share 1198.)
    expect(ledgerBalance()).toBe(1194 + 1198 + 1194);

    // The desk's statement shows what was paid out.
    const csv = await (await getWith(jar, `${server.url}/operator/towns/boise-idaho/statement.csv`)).text();
    expect(csv.split("\r\n")[1]).toBe("boise-idaho,2026-11,5,75.00,3.25,35.86,10.00,25.86,35.86");
  });

  it("follows account.updated from the Connect endpoint (its own signing secret)", async () => {
    const enabled = () => server.ctx.db.prepare("SELECT payouts_enabled FROM operator_accounts WHERE connect_account = ?").pluck().get(account);
    const paused = stripeEvent("account.updated", { ...stripe.accounts()[0], payouts_enabled: false });
    expect((await postCallback(server, paused, { secret: "whsec_connect_standin" })).status).toBe(200);
    expect(enabled()).toBe(0);
    expect((await postCallback(server, stripeEvent("account.updated", { ...stripe.accounts()[0] }), { secret: "whsec_wrong" })).status).toBe(403);
    expect(enabled()).toBe(0);
    expect((await postCallback(server, stripeEvent("account.updated", { ...stripe.accounts()[0] }), { secret: "whsec_connect_standin" })).status).toBe(200);
    expect(enabled()).toBe(1);
    expect((await (await postCallback(server, stripeEvent("account.updated", { id: "acct_notours", object: "account", payouts_enabled: true, details_submitted: true }), { secret: "whsec_connect_standin" })).json())).toMatchObject({ received: true });
  });

  it("cancelling the lease opens Stripe's billing portal for the subscription's customer", async () => {
    const desk = await (await getWith(jar, `${server.url}/operator/towns/boise-idaho`)).text();
    // Stripe down: a page says so and nothing changes.
    stripe.failWith = 500;
    const down = await postForm(jar, `${server.url}/operator/towns/boise-idaho/lease/cancel`, { csrf: csrfOf(desk) });
    stripe.failWith = undefined;
    expect(down.status).toBe(502);
    expect(down.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await down.text()).toContain("Stripe could not be reached just now. Nothing was changed");
    expect(desk).toContain("Manage billing or cancel");
    const res = await postForm(jar, `${server.url}/operator/towns/boise-idaho/lease/cancel`, { csrf: csrfOf(desk) });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toMatch(/^https:\/\/billing\.stripe\.com\/p\/session\/test_bps_/);
    const portal = stripe.requests.find((r) => r.path === "/v1/billing_portal/sessions")!;
    expect(Object.fromEntries(portal.form)).toEqual({ customer: "cus_payee1", return_url: `${server.url}/operator/towns/boise-idaho` });
  });
});

describe("local mode: npm run admin -- payouts report", () => {
  it("prints what each operator earned in the month and is owed, as CSV", async () => {
    const local = await startTestServer({ MAIL_SENDER: "off", NOW, SUBSCRIBE_RATE_LIMIT: "1000" });
    try {
      addSubscriber(local.ctx.db, "boise-idaho", "reader@example.org");
      const { payOnHostedPage } = await import("../helpers/commerce.ts");
      const lease = await (await local.post("/api/operator-actions", { action: "guest-checkout", city: "Boise", state: "Idaho", email: "owed@example.com" })).json();
      await payOnHostedPage(lease.checkoutUrl, "$10.00 a month");
      const listing = await (await local.post("/api/listing-checkout", { ...EVENT, tier: "featured" })).json();
      await payOnHostedPage(listing.checkoutUrl, "$25.00");
      const run = (month: string) => promisify(execFile)(process.execPath, ["scripts/admin.ts", "payouts", "report", "--month", month], {
        cwd: path.resolve(import.meta.dirname, "../.."), env: { ...process.env, DATA_DIR: local.dataDir, LOG_LEVEL: "silent", NOW, BASE_URL: local.url },
      });
      const { stdout } = await run("2026-11");
      // 2500 - 103 (2.9% + 30 cents) = 2397; half = 1198.
      expect(stdout).toBe("month,operator_email,towns,listings_sold,gross_usd,fees_usd,share_usd,lease_charge_usd,net_usd,paid_out_usd,owed_usd\r\n" +
        "2026-11,owed@example.com,boise-idaho,1,25.00,1.03,11.98,10.00,1.98,0.00,11.98\r\n");
      // Nothing earned in December (yet), but the balance is still owed at its end.
      expect((await run("2026-12")).stdout).toContain("2026-12,owed@example.com,boise-idaho,0,0.00,0.00,0.00,0.00,0.00,0.00,11.98");
      await expect(run("2026-13")).rejects.toMatchObject({ code: 2 });
    } finally {
      await local.stop();
    }
  }, 30_000);
});
