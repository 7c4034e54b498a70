import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { getWith, signIn } from "../helpers/operator.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";
import { EVENT, localSecret, nowSeconds, payOnHostedPage, postCallback, problemOf, stripeEvent } from "../helpers/commerce.ts";

// Town leases, territories, the payment callback's guarantees and the operator's money, end to end
// over HTTP on the local provider (callbacks signed with the stripe library's own test-header helper).

const NOW = "2026-11-22T12:00:00.000Z";
let sink: SmtpSink;
let server: TestServer;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  server = await startTestServer({ SMTP_URL: sink.url, MAIL_SENDER: "off", NOW, SUBSCRIBE_RATE_LIMIT: "1000", ADMIN_TOKEN: "admin-secret" });
  for (let i = 0; i < 3; i++) addSubscriber(server.ctx.db, "boise-idaho", `reader${i}@example.org`);
  addSubscriber(server.ctx.db, "st-louis-missouri", "reader@example.org");
});
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
});

const lease = (city: string, state: string, email?: string) => server.post("/api/operator-actions", { action: "guest-checkout", city, state, ...(email ? { email } : {}) });
const territories = async (q = "") => (await server.get(`/api/territories${q}`)).json() as Promise<Record<string, any>>;
const withClock = async (iso: string, fn: () => Promise<void>) => {
  const real = server.ctx.config.now;
  server.ctx.config.now = () => new Date(iso);
  try {
    await fn();
  } finally {
    server.ctx.config.now = real;
  }
};

describe("GET /api/territories", () => {
  it("quotes any U.S. place by city and state, in batch by slugs, and lists claimed towns", async () => {
    const one = await territories("?city=Boise&state=Idaho");
    expect(one.quote).toEqual({
      slug: "boise-idaho", city: "Boise", state: "Idaho", available: true, subscribers: 3,
      tier: 1, priceCents: 1000, subscribersToNextTier: 998, nextTierPriceCents: 1500,
    });
    expect(one).toMatchObject({ claimed: [], claimedCount: 0 });
    const batch = await territories("?slugs=st-louis-missouri,%20boise-idaho,nampa-idaho");
    expect(batch.quotes.map((q: any) => [q.slug, q.subscribers, q.priceCents])).toEqual([["st-louis-missouri", 1, 1000], ["boise-idaho", 3, 1000], ["nampa-idaho", 0, 1000]]);
    expect(batch.quotes[0].city).toBeUndefined();
  });

  it("names the offending field: one of city/state alone, too many slugs, too long values; unknown places", async () => {
    const alone = await problemOf(await server.get("/api/territories?city=Boise"));
    expect(alone).toMatchObject({ code: "validation_error", status: 400 });
    expect(alone.issues).toEqual([{ path: "state", message: "is required with city" }]);
    const stateOnly = await problemOf(await server.get("/api/territories?state=Idaho"));
    expect(stateOnly.issues![0].path).toBe("city");
    const many = await problemOf(await server.get(`/api/territories?slugs=${Array(31).fill("boise-idaho").join(",")}`));
    expect(many.issues![0]).toMatchObject({ path: "slugs", message: expect.stringMatching(/31 entries; at most 30/) });
    const long = await problemOf(await server.get(`/api/territories?slugs=${"a".repeat(4001)}`));
    expect(long.issues![0].path).toBe("slugs");
    const longCity = await problemOf(await server.get(`/api/territories?city=${"a".repeat(121)}&state=Idaho`));
    expect(longCity.issues![0].path).toBe("city");
    const badState = await problemOf(await server.get("/api/territories?city=Boise&state=Idahoe"));
    expect(badState.issues![0].path).toBe("state");
    expect((await problemOf(await server.get("/api/territories?city=Atlantis&state=Idaho"))).code).toBe("city_not_found");
    expect((await problemOf(await server.get("/api/territories?slugs=atlantis-idaho"))).code).toBe("city_not_found");
  });
});

describe("the lease: reserve, 409, expiry, payment, claimed, operator", () => {
  it("walks the whole flow", async () => {
    const first = await lease("Boise", "Idaho", "first@example.com");
    expect(first.status).toBe(200);
    const a = await first.json();
    expect(a).toMatchObject({ slug: "boise-idaho", priceCents: 1000, interval: "month", reservedUntil: "2026-11-22T12:30:00.000Z" });
    expect(a.leaseId).toMatch(/^tl_/);
    expect((await territories("?city=Boise&state=Idaho")).quote.available).toBe(false);

    const second = await lease("Boise", "Idaho", "second@example.com");
    expect(second.status).toBe(409);
    expect((await problemOf(second)).code).toBe("conflict");

    await withClock("2026-11-22T12:31:00.000Z", async () => {
      // The first reservation lapsed: the town is free, a new buyer gets a link.
      expect((await territories("?city=Boise&state=Idaho")).quote.available).toBe(true);
      const page = await (await fetch(a.checkoutUrl)).text();
      expect(page).toContain("expired");
      const third = await lease("Boise", "Idaho", "operator@example.com");
      expect(third.status).toBe(200);
      const c = await third.json();
      const done = await payOnHostedPage(c.checkoutUrl, "$10.00 a month", "Operator@Example.com");
      expect(await done.text()).toContain("active");
      await sendPendingMail(server.ctx);
    });

    const t = await territories();
    expect(t).toEqual({ claimed: [{ slug: "boise-idaho", city: "Boise", state: "Idaho" }], claimedCount: 1 });
    expect(JSON.stringify(t)).not.toContain("operator@");
    expect((await problemOf(await lease("Boise", "Idaho", "late@example.com"))).code).toBe("conflict");

    const mail = sink.messages.filter((m) => m.to.includes("operator@example.com"));
    expect(mail).toHaveLength(1);
    expect(mail[0].parsed.subject).toBe("You now operate the Boise, Idaho daily");
    // The activation email points at the desk's sign-in page and carries no token and no address in a link.
    expect(mail[0].parsed.text).toContain(`${server.url}/operator`);
    expect(mail[0].parsed.text ?? "").not.toMatch(/\/operator\/\S+/);
    const jar = await signIn(server, sink, "operator@example.com");
    const html = await (await getWith(jar, `${server.url}/operator/towns/boise-idaho`)).text();
    expect(html).toContain("operator@example.com");
    expect(html).toContain("Boise, Idaho");
    expect(html).toContain("No money has moved yet");
  });

  it("of 20 buyers racing for one town exactly one gets a link", async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => lease("St. Louis", "Missouri", `racer${i}@example.com`)));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    for (const r of answers.filter((x) => x.status === 409)) expect((await problemOf(r)).code).toBe("conflict");
  });
});

describe("revenue share and refunds", () => {
  it("a listing paid in a leased town credits the operator half the net; a refund unpublishes it and reverses the share", async () => {
    const body = await (await server.post("/api/listing-checkout", { ...EVENT, tier: "featured", title: "Winter market" })).json();
    await payOnHostedPage(body.checkoutUrl, "$25.00");
    const ledger = () => server.ctx.db.prepare("SELECT kind, gross_cents, fee_cents, amount_cents FROM ledger_entries WHERE order_id = ? ORDER BY id").all(body.orderId);
    // 2500 - (2.9% of 2500 = 72.5 -> 73, + 30) = 2397; half, rounded down: 1198.
    expect(ledger()).toEqual([{ kind: "share", gross_cents: 2500, fee_cents: 103, amount_cents: 1198 }]);

    const paymentId = server.ctx.db.prepare("SELECT provider_payment_id FROM listing_orders WHERE id = ?").pluck().get(body.orderId) as string;
    const partial = stripeEvent("charge.refunded", { id: "ch_local_1", object: "charge", payment_intent: paymentId, amount_refunded: 500, refunded: false });
    expect(await (await postCallback(server, partial)).json()).toMatchObject({ type: "ignored" });
    expect((await (await server.get(`/api/listing-order?id=${body.orderId}`)).json()).status).toBe("published");
    expect(ledger()).toHaveLength(1);
    const refund = stripeEvent("charge.refunded", { id: "ch_local_1", object: "charge", payment_intent: paymentId, amount_refunded: 2500, refunded: true });
    expect((await postCallback(server, refund)).status).toBe(200);
    expect((await (await server.get(`/api/listing-order?id=${body.orderId}`)).json())).toMatchObject({ status: "refunded", published: false });
    expect(ledger()).toEqual([
      { kind: "share", gross_cents: 2500, fee_cents: 103, amount_cents: 1198 },
      { kind: "reversal", gross_cents: -2500, fee_cents: -103, amount_cents: -1198 },
    ]);
    const city = await (await server.get("/api/city/boise-idaho")).json();
    expect(city.events.some((e: any) => e.id === body.orderId)).toBe(false);

    // The operator's statement nets the share and its reversal: one listing sold, a zero half.
    const jar = await signIn(server, sink, "operator@example.com");
    const csv = await (await getWith(jar, `${server.url}/operator/towns/boise-idaho/statement.csv`)).text();
    expect(csv.split("\r\n")[0]).toBe("town,month,listings_sold,gross_usd,fees_usd,your_share_usd,lease_charge_usd,net_usd,paid_out_usd");
    // (The lease was activated under a later test clock, so no lease charge falls before "now" here.)
    expect(csv.split("\r\n")[1]).toMatch(/^boise-idaho,2026-11,1,0\.00,0\.00,0\.00,/);
  });

  it("a lease whose subscription ends frees the town", async () => {
    const sub = server.ctx.db.prepare("SELECT provider_subscription_id FROM leases WHERE status = 'active'").pluck().get() as string;
    expect(sub).toMatch(/^sub_local_/);
    expect((await postCallback(server, stripeEvent("customer.subscription.deleted", { id: sub, object: "subscription", status: "canceled" }))).status).toBe(200);
    expect((await territories()).claimedCount).toBe(0);
    expect((await territories("?city=Boise&state=Idaho")).quote.available).toBe(true);
  });
});

describe("the callback endpoint", () => {
  async function pendingOrder() {
    const body = await (await server.post("/api/listing-checkout", { ...EVENT, title: `Concert ${crypto.randomUUID().slice(0, 8)}` })).json();
    const session = server.ctx.db.prepare("SELECT provider_session_id FROM listing_orders WHERE id = ?").pluck().get(body.orderId) as string;
    const event = stripeEvent("checkout.session.completed", {
      id: session, object: "checkout.session", mode: "payment", payment_status: "paid", amount_total: 1000, metadata: { order_id: body.orderId },
      client_reference_id: body.orderId, payment_intent: `pi_test_${crypto.randomUUID().slice(0, 8)}`, customer_details: { email: "buyer@example.com" },
    });
    return { id: body.orderId as string, event };
  }
  const status = async (id: string) => ((await (await server.get(`/api/listing-order?id=${id}`)).json()) as { status: string }).status;

  it("refuses unsigned, forged, tampered and stale callbacks with a problem, changing nothing", async () => {
    const { id, event } = await pendingOrder();
    const payload = JSON.stringify(event);
    const unsigned = await postCallback(server, payload, { headers: { "Content-Type": "application/json" } });
    expect(unsigned.status).toBe(401);
    expect((await problemOf(unsigned)).code).toBe("unauthorized");
    const forged = await postCallback(server, payload, { secret: "not-the-secret" });
    expect(forged.status).toBe(403);
    expect((await problemOf(forged)).code).toBe("forbidden");
    const { signedCallback } = await import("../helpers/commerce.ts");
    const headers = signedCallback(payload, localSecret(server), nowSeconds(server));
    const tampered = await fetch(`${server.url}/webhooks/payments`, { method: "POST", headers, body: payload.replace('"amount_total":1000', '"amount_total":1') });
    expect(tampered.status).toBe(403);
    const stale = await postCallback(server, payload, { timestamp: nowSeconds(server) - 301 });
    expect(stale.status).toBe(403);
    expect((await problemOf(stale)).detail).toMatch(/stale/);
    expect(await status(id)).toBe("pending_payment");
  });

  it("applies an event once: a replay answers 200 and changes nothing", async () => {
    const { id, event } = await pendingOrder();
    const first = await postCallback(server, event);
    expect(await first.json()).toEqual({ received: true, duplicate: false, type: "checkout.completed" });
    expect(await status(id)).toBe("published");
    const replay = await postCallback(server, event);
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual({ received: true, duplicate: true, type: "checkout.completed" });
    expect(server.ctx.db.prepare("SELECT COUNT(*) FROM payment_events WHERE event_id = ?").pluck().get(event.id)).toBe(1);
    expect(server.ctx.db.prepare("SELECT COUNT(*) FROM outbox WHERE dedupe_key = ?").pluck().get(`${id}:listing_published`)).toBe(1);
  });

  it("checkout expired: the order expires; events it does not act on are acknowledged", async () => {
    const { id, event } = await pendingOrder();
    const expired = stripeEvent("checkout.session.expired", { ...event.data.object, status: "expired", payment_status: "unpaid" });
    expect((await postCallback(server, expired)).status).toBe(200);
    expect(await status(id)).toBe("expired");
    const other = await postCallback(server, stripeEvent("invoice.paid", { id: "in_1", object: "invoice" }));
    expect(await other.json()).toMatchObject({ received: true, type: "ignored" });
  });

  it("is not part of the public API", async () => {
    const doc = await (await server.get("/openapi.json")).json();
    expect(Object.keys(doc.paths)).not.toContain("/webhooks/payments");
    expect(Object.keys(doc.paths).filter((p) => p.startsWith("/admin"))).toEqual([]);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/api/pricing", "/api/listing-quote", "/api/territories", "/api/listing-checkout", "/api/business-checkout", "/api/operator-actions", "/api/listing-order"]));
    expect(JSON.stringify(doc.paths["/api/listing-order"])).toContain("pending_payment -> paid -> published -> ended");
  });
});
