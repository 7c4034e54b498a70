import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { sweepAndRerender } from "../../src/services/commerce/sweep-schedule.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";
import { BUSINESS, EVENT, payOnHostedPage, problemOf } from "../helpers/commerce.ts";

// The listing flows end to end over HTTP on the embedded (local) payment provider: price, screen,
// checkout, a person paying on the hosted page, the signed callback, publication, review by staff,
// and the buyer's emails through the outbox.

const NOW = "2026-11-22T12:00:00.000Z";
const ADMIN = { Authorization: "Bearer admin-secret" };
let sink: SmtpSink;
let server: TestServer;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  server = await startTestServer({
    SMTP_URL: sink.url, MAIL_SENDER: "off", NOW, SUBSCRIBE_RATE_LIMIT: "1000", ADMIN_TOKEN: "admin-secret",
    POSTAL_ADDRESS: "citydaily, 100 Main St, Springfield, IL 62701",
  });
  addSubscriber(server.ctx.db, "boise-idaho", "reader@example.org");
});
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
});

const order = async (id: string) => (await (await server.get(`/api/listing-order?id=${id}`)).json()) as Record<string, any>;
const city = async () => (await (await server.get("/api/city/boise-idaho")).json()) as { events: Array<Record<string, any>>; directory: Array<Record<string, any>> };
async function mailTo(email: string) {
  await sendPendingMail(server.ctx);
  return sink.messages.filter((m) => m.to.includes(email));
}

describe("prices", () => {
  it("GET /api/pricing lists every tier with its id, price in cents and what it includes, and the lease formula", async () => {
    const res = await server.get("/api/pricing");
    expect(res.status).toBe(200);
    const p = await res.json();
    for (const product of ["event", "business"]) {
      expect(p[product].map((t: any) => [t.id, t.priceCents, t.currency, t.payment])).toEqual([
        ["free", 0, "usd", "none"], ["standard", 1000, "usd", "one-off"], ["featured", 2500, "usd", "one-off"],
      ]);
      expect(p[product][0].reviewedByPerson).toBe(true);
    }
    expect(p.event[2].includes.join(" ")).toMatch(/daily email/);
    expect(p.business[2].includes.join(" ")).toMatch(/once a week/);
    expect(p.business[1].runDays).toBe(30);
    expect(p.lease).toMatchObject({ baseCents: 1000, stepCents: 500, stepSubscribers: 1000, interval: "month", reservationMinutes: 30 });
    expect(p.lease.operatorShare).toMatch(/half the net/);
  });

  it("GET /api/listing-quote: a town's prices and whether it sells; unknown and malformed slugs are problems", async () => {
    const q = await (await server.get("/api/listing-quote?slug=boise-idaho")).json();
    expect(q).toMatchObject({ slug: "boise-idaho", city: "Boise", selling: true });
    const quiet = await (await server.get("/api/listing-quote?slug=nampa-idaho")).json();
    expect(quiet.selling).toBe(false);
    expect(quiet.reason).toMatch(/no newsletter/);
    expect((await problemOf(await server.get("/api/listing-quote?slug=atlantis-idaho"))).code).toBe("city_not_found");
    expect((await problemOf(await server.get("/api/listing-quote?slug=Not%20A%20Slug"))).code).toBe("invalid_slug");
  });

  it("one rule for towns without a newsletter: the quote, the lease and both checkouts agree; a leased town sells before its first subscriber", async () => {
    const quote = async () => (await (await server.get("/api/listing-quote?slug=caldwell-idaho")).json()) as { selling: boolean; reason?: string };
    expect(await quote()).toMatchObject({ selling: false, reason: expect.stringMatching(/first subscriber or an operator leases it/) });
    // A real town that takes no listings yet: a conflict with the town's state, not an unknown city; nothing is stored.
    const count = () => server.ctx.db.prepare("SELECT COUNT(*) FROM listing_orders").pluck().get();
    const before = count();
    for (const [path, body] of [["/api/listing-checkout", EVENT], ["/api/business-checkout", BUSINESS]] as const) {
      const p = await problemOf(await server.post(path, { ...body, slug: "caldwell-idaho" }));
      expect(p.code).toBe("conflict");
      expect(p.detail).toMatch(/Caldwell, Idaho has no newsletter yet/);
    }
    expect(count()).toBe(before);
    // Any place can be leased; once the lease is paid the town sells, with no subscriber yet.
    const lease = await (await server.post("/api/operator-actions", { action: "guest-checkout", city: "Caldwell", state: "Idaho", email: "op@example.com" })).json();
    expect(lease.checkoutUrl).toBeDefined();
    expect((await quote()).selling).toBe(false); // reserved is not leased
    await payOnHostedPage(lease.checkoutUrl, "$10.00");
    expect(await quote()).toMatchObject({ selling: true });
    expect(await quote()).not.toHaveProperty("reason");
    const res = await server.post("/api/listing-checkout", { ...EVENT, slug: "caldwell-idaho" });
    expect(res.status).toBe(200);
    expect((await res.json()).checkoutUrl).toMatch(/\/checkout\//);
  });
});

describe("paid event: checkout -> hosted page -> callback -> published", () => {
  it("publishes within the callback and shows it on the town's calendar, escaped text intact", async () => {
    const res = await server.post("/api/listing-checkout", { ...EVENT, title: "Harvest Fair <b>&</b> cider", tier: "featured" });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.orderId).toMatch(/^lo_[0-9a-f-]{36}$/);
    expect(Object.keys(body).filter((k) => ["checkoutUrl", "rejected", "held", "queued"].includes(k))).toEqual(["checkoutUrl"]);
    expect(body.statusUrl).toBe(`${server.url}/api/listing-order?id=${body.orderId}`);
    // The page to give a person: the same order in words.
    expect(body.orderPageUrl).toBe(`${server.url}/orders/${body.orderId}`);

    const before = await order(body.orderId);
    expect(before).toMatchObject({ status: "pending_payment", published: false, checkoutUrl: body.checkoutUrl, priceCents: 2500, town: { slug: "boise-idaho" } });

    const done = await payOnHostedPage(body.checkoutUrl, "$25.00");
    expect(done.status).toBe(200);
    // The checkout leads to the order's page for people, which says it is published and where.
    expect(done.url).toBe(`${server.url}/orders/${body.orderId}`);
    const page = await done.text();
    expect(page).toContain('<span data-testid="status">Your listing is published</span>');
    expect(page).toContain("$25.00, paid");
    expect(page).toContain('href="/boise-idaho#calendar-heading"');
    expect(page).not.toContain('http-equiv="refresh"');

    const after = await order(body.orderId);
    expect(after).toMatchObject({ status: "published", published: true });
    expect(after.checkoutUrl).toBeUndefined();
    const { events } = await city();
    const shown = events.find((e) => e.id === body.orderId)!;
    expect(shown).toMatchObject({ title: "Harvest Fair <b>&</b> cider", featured: true, startsAt: "2026-11-28", venue: "Julia Davis Park" });

    const mail = await mailTo("buyer@example.com");
    // Nobody confirmed the buyer's address: the email names the listing in the service's words, never its title.
    expect(mail.map((m) => m.parsed.subject)).toContain("Your event listing for Saturday, November 28, 2026 in Boise, Idaho is live");
    const html = String(mail.find((m) => /is live/.test(m.parsed.subject ?? ""))!.parsed.html);
    expect(html).not.toContain("Harvest Fair");
    // What was bought and paid, and the order page for people, never the JSON status URL.
    const text = String(mail.find((m) => /is live/.test(m.parsed.subject ?? ""))!.parsed.text);
    expect(text).toContain(`You bought: Featured event listing for Saturday, November 28, 2026 in Boise, Idaho (order ${body.orderId}).`);
    expect(text).toContain("Amount paid: $25.00.");
    expect(text).toContain(`${server.url}/orders/${body.orderId}`);
    expect(text).not.toContain("/api/");
    expect(html).not.toContain("/api/");
  });

  it("a second Pay on a paid session changes nothing and publishes once", async () => {
    const body = await (await server.post("/api/listing-checkout", EVENT)).json();
    await payOnHostedPage(body.checkoutUrl, "$10.00");
    const again = await fetch(`${body.checkoutUrl}/pay`, { method: "POST", body: "email=x%40example.com", headers: { "Content-Type": "application/x-www-form-urlencoded" }, redirect: "manual" });
    expect(again.status).toBe(303);
    expect((await order(body.orderId)).status).toBe("published");
    const published = (await mailTo("buyer@example.com")).filter((m) => m.parsed.subject?.endsWith("is live") && m.parsed.text?.includes(body.orderId));
    expect(published).toHaveLength(1);
  });
});

describe("free event: queued -> a person approves -> published", () => {
  it("waits for approval; the admin endpoints need the bearer token; approval publishes and emails", async () => {
    const body = await (await server.post("/api/listing-checkout", { ...EVENT, tier: "free", title: "Library story hour" })).json();
    expect(body.queued.message).toMatch(/approve/);
    expect(body.checkoutUrl).toBeUndefined();
    expect((await order(body.orderId)).status).toBe("awaiting_review");
    expect((await city()).events.some((e) => e.id === body.orderId)).toBe(false);

    expect((await problemOf(await server.post(`/admin/orders/${body.orderId}/approve`, {}))).code).toBe("unauthorized");
    expect((await problemOf(await server.post(`/admin/orders/${body.orderId}/approve`, {}, { headers: { Authorization: "Bearer wrong" } }))).code).toBe("forbidden");
    const list = await (await server.get("/admin/orders?status=awaiting_review", { headers: ADMIN })).json();
    expect(list.orders.map((o: any) => o.id)).toContain(body.orderId);
    expect(list.orders[0].buyerEmail).toBe("buyer@example.com");

    const approved = await server.post(`/admin/orders/${body.orderId}/approve`, {}, { headers: ADMIN });
    expect(approved.status).toBe(200);
    expect((await approved.json()).status).toBe("published");
    expect((await order(body.orderId)).published).toBe(true);
    expect((await city()).events.map((e) => e.title)).toContain("Library story hour");
    // Approving twice is a conflict, not a second publication.
    expect((await problemOf(await server.post(`/admin/orders/${body.orderId}/approve`, {}, { headers: ADMIN }))).code).toBe("conflict");
  });

  it("a person's rejection emails the buyer that it was rejected; the reason is on the order page", async () => {
    const body = await (await server.post("/api/listing-checkout", { ...EVENT, tier: "free", title: "Quiet flea market", url: "https://quiet-flea.example/", buyerEmail: "flea@example.com" })).json();
    const res = await server.post(`/admin/orders/${body.orderId}/reject`, { reason: "Duplicate of an existing listing" }, { headers: ADMIN });
    expect(res.status).toBe(200);
    const o = await order(body.orderId);
    expect(o).toMatchObject({ status: "rejected", published: false, rejected: { rule: "staff-review", reason: "Duplicate of an existing listing" } });
    const mail = await mailTo("flea@example.com");
    expect(mail).toHaveLength(1);
    expect(mail[0].parsed.text).not.toContain("Duplicate of an existing listing");
    expect(mail[0].parsed.text).toContain(`Their reason is on your order page: ${server.url}/orders/${body.orderId}`);
    expect(await (await server.get(`/orders/${body.orderId}`)).text()).toContain("Duplicate of an existing listing");
    expect(mail[0].parsed.text).not.toContain("/api/");
  });
});

describe("the compliance screen", () => {
  const cases: Array<[string, Record<string, string>]> = [
    ["url-scheme", { url: "javascript:alert(1)" }],
    ["url-shortener", { url: "https://bit.ly/3xYz" }],
    ["disposable-email", { buyerEmail: "someone@mailinator.com" }],
    ["past-event", { startsAt: "2026-11-01" }],
    ["outside-us", { venue: "Massey Hall, Toronto" }],
    ["adult", { title: "Late night escort meetup" }],
    ["weapons", { description: "Guns for sale in the parking lot" }],
    ["drugs", { description: "Fentanyl testing? No: fentanyl sold here" }],
    ["gambling", { title: "Casino night fundraiser" }],
    ["scams", { description: "Get rich quick with our crypto giveaway" }],
    ["hate", { description: "A white power rally" }],
    ["political", { title: "Vote for Smith rally" }],
  ];
  it.each(cases)("rejects %s with its rule, its reason and no payment link", async (rule, change) => {
    const res = await server.post("/api/listing-checkout", { ...EVENT, ...change });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.rejected.rule).toBe(rule);
    expect(body.rejected.reason.length).toBeGreaterThan(10);
    expect(body.checkoutUrl).toBeUndefined();
    const o = await order(body.orderId);
    expect(o).toMatchObject({ status: "rejected", published: false, rejected: { rule } });
    expect(o.checkoutUrl).toBeUndefined();
  });

  it("holds borderline listings; a person releases one, it is paid and published", async () => {
    const held = await (await server.post("/api/listing-checkout", { ...EVENT, title: "Detox yoga retreat", buyerEmail: "yoga@example.com" })).json();
    expect(held.held.rule).toBe("health-claims");
    expect(held.checkoutUrl).toBeUndefined();
    const caps = await (await server.post("/api/business-checkout", { ...BUSINESS, title: "BEST PIZZA IN TOWN EVER" })).json();
    expect(caps.held.rule).toBe("all-caps");
    // The screen's rejections above (the gambling case used the same host) do not hold the domain;
    // a person's rejection in this town (the flea market's, above) does.
    const screened = await (await server.post("/api/listing-checkout", { ...EVENT, url: "https://harvestfair.example/other" })).json();
    expect(screened.held).toBeUndefined();
    expect(screened.checkoutUrl).toBeDefined();
    const seen = await (await server.post("/api/listing-checkout", { ...EVENT, url: "https://quiet-flea.example/other" })).json();
    expect(seen.held?.rule).toBe("rejected-domain");

    const released = await (await server.post(`/admin/orders/${held.orderId}/release`, {}, { headers: ADMIN })).json();
    expect(released.status).toBe("pending_payment");
    const o = await order(held.orderId);
    expect(o.checkoutUrl).toMatch(/\/checkout\/cs_local_/);
    const released_mail = await mailTo("yoga@example.com");
    expect(released_mail.map((m) => m.parsed.subject)).toEqual(["Your event listing for Saturday, November 28, 2026 in Boise, Idaho is approved: complete the payment"]);
    expect(released_mail[0].parsed.text).toContain(o.checkoutUrl);
    expect(released_mail[0].parsed.text).toContain("Amount to pay: $10.00. Nothing was charged.");
    // When the link closes, on Boise's clock (12:00 UTC and 23 hours), not in UTC.
    for (const part of [released_mail[0].parsed.text, released_mail[0].parsed.html]) {
      expect(part).toContain("The link is open until 4:00 AM MST on November 23.");
      expect(part).not.toContain("UTC");
    }
    const page = await (await server.get(`/orders/${held.orderId}`)).text();
    expect(page).toContain("the payment link is open until 4:00 AM MST on November 23.");
    expect(page).not.toContain("UTC");
    expect(released_mail[0].parsed.text).toContain(`/orders/${held.orderId}`);
    expect(released_mail[0].parsed.text).not.toContain("/api/");
    await payOnHostedPage(o.checkoutUrl, "$10.00");
    expect(await order(held.orderId)).toMatchObject({ status: "published", published: true });
  });

  it("answers malformed requests with validation problems and stores nothing", async () => {
    const count = () => server.ctx.db.prepare("SELECT COUNT(*) FROM listing_orders").pluck().get();
    const before = count();
    const bad = await problemOf(await server.post("/api/listing-checkout", { ...EVENT, tier: "gold", buyerEmail: "nope", startsAt: "next week" }));
    expect(bad.code).toBe("validation_error");
    expect(bad.issues!.map((i) => i.path).sort()).toEqual(["buyerEmail", "startsAt", "tier"]);
    expect((await problemOf(await server.post("/api/listing-checkout", { ...EVENT, slug: "atlantis-idaho" }))).code).toBe("city_not_found");
    expect((await problemOf(await server.get("/api/listing-order?id=lo_nope"))).code).toBe("validation_error");
    expect((await problemOf(await server.get(`/api/listing-order?id=lo_${crypto.randomUUID()}`))).code).toBe("not_found");
    expect(count()).toBe(before);
  });
});

describe("business listings", () => {
  it("a paid business is in the directory for 30 days from payment, then ends (frozen clock) and the owner is emailed", async () => {
    const body = await (await server.post("/api/business-checkout", { ...BUSINESS, tier: "featured" })).json();
    await payOnHostedPage(body.checkoutUrl, "$25.00");
    const o = await order(body.orderId);
    expect(o).toMatchObject({ status: "published", runEndsAt: "2026-12-22T12:00:00.000Z", address: "112 N 8th St", category: "Bakery" });
    const listed = (await city()).directory.find((d) => d.id === body.orderId)!;
    expect(listed).toMatchObject({ title: "Rosemary Bakery", featured: true, endsOn: "2026-12-22", category: "Bakery" });

    const real = server.ctx.config.now;
    try {
      server.ctx.config.now = () => new Date("2026-12-22T11:59:00.000Z");
      expect((await city()).directory.some((d) => d.id === body.orderId)).toBe(true);
      server.ctx.config.now = () => new Date("2026-12-22T12:00:00.000Z");
      expect((await city()).directory.some((d) => d.id === body.orderId)).toBe(false);
      expect(await order(body.orderId)).toMatchObject({ status: "ended", published: false });
      // Reads show the end at once; the server's minute sweep stores it and emails the owner.
      sweepAndRerender(server.ctx);
      const mail = await mailTo("owner@example.com");
      expect(mail.map((m) => m.parsed.subject)).toEqual(expect.arrayContaining([
        "Your business listing in Boise, Idaho is live",
        "Your business listing in Boise, Idaho has ended",
      ]));
    } finally {
      server.ctx.config.now = real;
    }
  });

  it("an unpaid payment link expires: the order expires and the buyer is emailed once", async () => {
    const body = await (await server.post("/api/business-checkout", { ...BUSINESS, buyerEmail: "late@example.com" })).json();
    const real = server.ctx.config.now;
    try {
      server.ctx.config.now = () => new Date(Date.parse(NOW) + 24 * 3600_000);
      expect((await order(body.orderId)).status).toBe("expired");
      const page = await fetch(body.checkoutUrl);
      expect(await page.text()).toContain("expired");
      // Two minutes' sweeps: the expiry is stored and emailed once.
      sweepAndRerender(server.ctx);
      sweepAndRerender(server.ctx);
      expect((await mailTo("late@example.com")).map((m) => m.parsed.subject)).toEqual(["Your checkout for a business listing in Boise, Idaho expired"]);
    } finally {
      server.ctx.config.now = real;
    }
  });
});

describe("the daily email", () => {
  it("carries featured events of the coming week (not the others) and mentions a featured business once a week", async () => {
    const { runMorning } = await import("../../src/services/morning/run-morning.ts");
    const biz = await (await server.post("/api/business-checkout", { ...BUSINESS, tier: "featured", title: "Corner Books", url: "https://corner-books.example/", buyerEmail: "books@example.com" })).json();
    await payOnHostedPage(biz.checkoutUrl, "$25.00");
    // (The events published above ended when the clock jumped a month; these are new.)
    const featured = await (await server.post("/api/listing-checkout", { ...EVENT, tier: "featured", title: "Lantern walk <i>by the river</i>", url: "https://lanterns.example.org/" })).json();
    await payOnHostedPage(featured.checkoutUrl, "$25.00");
    const standard = await (await server.post("/api/listing-checkout", { ...EVENT, title: "Choir practice", url: "https://choir.example.org/" })).json();
    await payOnHostedPage(standard.checkoutUrl, "$10.00");
    const markdown: string[] = [];
    // Each morning of the week on the real path, its clock pinned to 6:00 in Boise (its readers subscribed above).
    for (let d = 23; d <= 29; d++) {
      const date = `2026-11-${d}`;
      // No outside sources in this test (the editions go without a forecast): the listings are what it reads.
      await runMorning(server.ctx, { now: new Date(`${date}T13:00:00Z`), publish: false, gather: () => ({ forTown: async () => ({ weather: null, alerts: [], airQuality: null }), done: Promise.resolve([]) }) });
      markdown.push(server.ctx.db.prepare("SELECT markdown FROM editions WHERE date = ? AND place_geoid = (SELECT geoid FROM places WHERE slug = 'boise-idaho')").pluck().get(date) as string);
    }
    // The featured fair (Nov 28) is in the calendar of the week before it; the standard one is not.
    // Paid, so labelled Sponsored; the day and time in words.
    expect(markdown[0]).toMatch(/- Sponsored: \*\*Lantern walk .*by the river.*\*\*, Sat, Nov 28/);
    expect(markdown[0]).not.toContain("Choir practice");
    expect(markdown[0]).not.toContain("<i>");
    // The day after the event it is gone.
    expect(markdown[6]).not.toContain("Lantern walk");
    expect(markdown.filter((m) => m.includes("Sponsored: **Corner Books**"))).toHaveLength(1);
    for (const m of markdown) expect(m).toMatch(/business(es)? (is|are) listed in the \[town directory\]/);
  }, 120_000);
});
