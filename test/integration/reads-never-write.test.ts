import Database from "better-sqlite3";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { buildSite } from "../../src/services/site/publish.ts";
import { sweepAndRerender } from "../../src/services/commerce/sweep-schedule.ts";
import { BUSINESS, EVENT, leaseTown, payOnHostedPage } from "../helpers/commerce.ts";
import { csrfOf, getWith, postForm, signIn, type Jar } from "../helpers/operator.ts";
import { addEdition, addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";

// Reads never write: what time changes (a listing's run ends, a payment link or a lease reservation
// lapses, a cancelled lease's paid period ends) reads as changed at once, while another connection
// holds the database's write lock; the server's minute sweep then stores it, emails the buyer once
// and re-renders the town's page. Real HTTP, SQLite, SMTP and the static site.

const NOW = "2026-11-22T12:00:00.000Z";
/** The event's run is over (2026-11-29T12:00Z), the unpaid link (24 h) and Nampa's reservation (30 min) lapsed. */
const EVENT_OVER = "2026-11-29T13:00:00.000Z";
/** The business's 30 days and the cancelled lease's paid period are over too (2026-12-22T12:00Z). */
const ALL_OVER = "2026-12-23T00:00:00.000Z";
const OPERATOR = "operator@example.com";
const ADMIN = { Authorization: "Bearer admin-secret" };

let sink: SmtpSink;
let server: TestServer;
let jar: Jar;
const ids = { event: "", business: "", unpaid: "", unpaidCheckout: "", reservation: "" };
const at = (iso: string) => { server.ctx.config.now = () => new Date(iso); };
const stored = (sql: string, ...args: unknown[]) => server.ctx.db.prepare(sql).pluck().get(...args);
const json = async (p: string, init?: RequestInit) => (await server.get(p, init)).json();

beforeAll(async () => {
  sink = await new SmtpSink().start();
  // The server's own minute sweep is off here: the test runs each minute's sweep itself, when it means to.
  server = await startTestServer({ SMTP_URL: sink.url, MAIL_SENDER: "off", NOW, SUBSCRIBE_RATE_LIMIT: "1000", ADMIN_TOKEN: "admin-secret", COMMERCE_SWEEP_SECONDS: "0" });
  addSubscriber(server.ctx.db, "boise-idaho", "reader@example.org");
  addEdition(server.ctx.db, "boise-idaho", "2026-11-22", "Boise: clear and cold");
  await buildSite(server.ctx);
  // Boise is leased, then its operator cancels: it stays theirs until the paid period ends.
  await leaseTown(server, OPERATOR);
  jar = await signIn(server, sink, OPERATOR);
  const desk = await (await getWith(jar, `${server.url}/operator/towns/boise-idaho`)).text();
  expect((await postForm(jar, `${server.url}/operator/towns/boise-idaho/lease/cancel`, { csrf: csrfOf(desk) })).status).toBe(303);
  // A paid event, a paid business, an unpaid business checkout, and a reservation of Nampa left unpaid.
  const event = await (await server.post("/api/listing-checkout", { ...EVENT, buyerEmail: "fair@example.com" })).json();
  await payOnHostedPage(event.checkoutUrl, "$10.00");
  const business = await (await server.post("/api/business-checkout", BUSINESS)).json();
  await payOnHostedPage(business.checkoutUrl, "$10.00");
  const unpaid = await (await server.post("/api/business-checkout", { ...BUSINESS, title: "Late Bakery", buyerEmail: "late@example.com" })).json();
  const reservation = await (await server.post("/api/operator-actions", { action: "guest-checkout", city: "Nampa", state: "Idaho", email: "nampa@example.com" })).json();
  Object.assign(ids, { event: event.orderId, business: business.orderId, unpaid: unpaid.orderId, unpaidCheckout: unpaid.checkoutUrl, reservation: reservation.leaseId });
  await sendPendingMail(server.ctx);
  // The listings are on the town's page (re-rendered in the background after each payment).
  await pageUntil("/boise-idaho", (b) => b.includes("Harvest Fair") && b.includes("Rosemary Bakery"));
  // The place finder's index is built on the first search (seconds of CPU, no write): built now, not under the lock.
  expect((await server.get("/api/places?q=boise")).status).toBe(200);
}, 180_000);
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
});

/** Polls a page until `ok(body)` (the re-render runs in the background). */
async function pageUntil(p: string, ok: (body: string) => boolean): Promise<string> {
  for (let i = 0; i < 80; i++) {
    const body = await (await server.get(p)).text();
    if (ok(body)) return body;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${p} never changed`);
}

/**
 * Every kind of GET, answered while another connection holds the write lock (BEGIN IMMEDIATE on the
 * same file): a GET that wrote would wait out the busy timeout (5 s) and fail.
 */
async function readsWhileLocked(paths: string[]): Promise<Array<{ path: string; status: number; ms: number }>> {
  const other = new Database(path.join(server.dataDir, "citydaily.db"));
  other.pragma("busy_timeout = 0");
  other.prepare("BEGIN IMMEDIATE").run();
  try {
    const out = [];
    for (const p of paths) {
      const started = performance.now();
      const headers: Record<string, string> = p.startsWith("/admin/") ? ADMIN : p.startsWith("/operator") ? { Cookie: jar.header() } : {};
      const res = await fetch(p.startsWith("http") ? p : server.url + p, { headers, redirect: "manual" });
      await res.arrayBuffer();
      out.push({ path: p, status: res.status, ms: Math.round(performance.now() - started) });
    }
    return out;
  } finally {
    other.prepare("ROLLBACK").run();
    other.close();
  }
}

const answeredAtOnce = (rows: Array<{ path: string; status: number; ms: number }>) =>
  expect(rows.filter((r) => r.status !== 200 || r.ms > 1500)).toEqual([]);

const reads = {
  eventOver: [
    "/api/cities", "/api/city/boise-idaho", "/api/events/boise-idaho", "/boise-idaho/calendar.ics",
    "/api/territories", "/api/territories?city=Nampa&state=Idaho", "/api/territories?slugs=boise-idaho,nampa-idaho",
    "/api/places?q=boise", "/api/listing-quote?slug=boise-idaho&product=event&tier=standard", "/api/pricing",
    "/api/listing-order?id=${event}", "/api/listing-order?id=${unpaid}", "/orders/${event}", "/orders/${unpaid}",
    "${unpaidCheckout}", "/purchase/done?lease=${reservation}",
    "/operator", "/operator/towns/boise-idaho", "/admin/orders", "/admin/orders/${event}", "/admin/leases",
  ],
  allOver: [
    "/api/city/boise-idaho", "/api/events/boise-idaho", "/boise-idaho/calendar.ics", "/api/territories?city=Boise&state=Idaho",
    "/api/places?q=boise", "/api/listing-order?id=${business}", "/orders/${business}", "/operator", "/admin/leases?status=ended",
  ],
};
const withIds = (paths: string[]) => paths.map((p) => p.replace(/\$\{(\w+)\}/g, (_, k: keyof typeof ids) => ids[k]));

// One clock that only moves forward (as a real one does): NOW, then EVENT_OVER, then ALL_OVER.
describe("what time changes reads as changed at once; no GET takes the write lock; the minute sweep stores it", () => {
  it("reads: the ended event leaves the city's answer and calendar, the lapsed reservation frees Nampa, the link reads expired", async () => {
    at(NOW);
    expect((await json("/api/city/boise-idaho")).events.map((e: { id: string }) => e.id)).toContain(ids.event);
    expect((await json("/api/territories?city=Nampa&state=Idaho")).quote.available).toBe(false);
    at(EVENT_OVER);
    const city = await json("/api/city/boise-idaho");
    expect(city.events.map((e: { id: string }) => e.id)).not.toContain(ids.event);
    expect(city.directory.map((d: { id: string }) => d.id)).toContain(ids.business);
    expect((await json("/api/events/boise-idaho?from=2026-11-28&to=2026-11-29")).events).toEqual([]);
    expect(await (await server.get("/boise-idaho/calendar.ics")).text()).not.toContain("Harvest Fair");
    expect(await json(`/api/listing-order?id=${ids.event}`)).toMatchObject({ status: "ended", published: false });
    expect(await json(`/api/listing-order?id=${ids.unpaid}`)).toMatchObject({ status: "expired" });
    expect((await json("/api/territories?city=Nampa&state=Idaho")).quote.available).toBe(true);
    expect((await json("/admin/leases?status=expired", { headers: ADMIN })).leases.map((l: { id: string }) => l.id)).toContain(ids.reservation);
    // Before the sweep the static page still shows the event; nothing was stored, nobody was emailed.
    expect(await (await server.get("/boise-idaho")).text()).toContain("Harvest Fair");
    await sendPendingMail(server.ctx);
    expect(sink.messages.filter((m) => m.to.includes("fair@example.com") && /has ended/.test(m.parsed.subject ?? ""))).toHaveLength(0);
  });

  it("while another connection holds the write lock, every kind of GET answers at once, and nothing is stored", async () => {
    jar = await signIn(server, sink, OPERATOR);
    answeredAtOnce(await readsWhileLocked(withIds(reads.eventOver)));
    expect(stored("SELECT status FROM listing_orders WHERE id = ?", ids.event)).toBe("published");
    expect(stored("SELECT status FROM listing_orders WHERE id = ?", ids.unpaid)).toBe("pending_payment");
    expect(stored("SELECT status FROM leases WHERE id = ?", ids.reservation)).toBe("reserved");
  });

  it("the minute sweep stores it, emails each buyer once and re-renders the town's page", async () => {
    expect([...sweepAndRerender(server.ctx)]).toEqual([stored("SELECT geoid FROM places WHERE slug = 'boise-idaho'")]);
    expect(stored("SELECT status FROM listing_orders WHERE id = ?", ids.event)).toBe("ended");
    expect(stored("SELECT status FROM listing_orders WHERE id = ?", ids.unpaid)).toBe("expired");
    expect(stored("SELECT status FROM leases WHERE id = ?", ids.reservation)).toBe("expired");
    const html = await pageUntil("/boise-idaho", (b) => !b.includes("Harvest Fair"));
    expect(html).toContain("Rosemary Bakery");
    // A second minute finds nothing to do: no second email.
    expect(sweepAndRerender(server.ctx).size).toBe(0);
    await sendPendingMail(server.ctx);
    const subjects = (to: string) => sink.messages.filter((m) => m.to.includes(to)).map((m) => m.parsed.subject ?? "");
    expect(subjects("fair@example.com").filter((s) => s.includes("has ended"))).toEqual(["Your event listing for Saturday, November 28, 2026 in Boise, Idaho has ended"]);
    expect(subjects("late@example.com").filter((s) => s.includes("expired"))).toHaveLength(1);
  });

  it("after the business's run and the cancelled lease's paid period: the same reads under the lock, the lease reads ended on its paid period's end", async () => {
    at(ALL_OVER);
    jar = await signIn(server, sink, OPERATOR);
    answeredAtOnce(await readsWhileLocked(withIds(reads.allOver)));
    expect(stored("SELECT status FROM leases WHERE operator_email = ? AND activated_at IS NOT NULL", OPERATOR)).toBe("active");
    expect((await json("/api/territories?city=Boise&state=Idaho")).quote.available).toBe(true);
    expect((await json("/api/territories")).claimedCount).toBe(0);
    const ended = (await json("/admin/leases?status=ended", { headers: ADMIN })).leases;
    expect(ended).toEqual([expect.objectContaining({ operatorEmail: OPERATOR, endedAt: "2026-12-22T12:00:00.000Z" })]);
    expect((await getWith(jar, `${server.url}/operator/towns/boise-idaho`)).status).toBe(404);
    expect(await json(`/api/listing-order?id=${ids.business}`)).toMatchObject({ status: "ended" });
  });

  it("the minute sweep stores the ended lease on that instant and the ended business, and re-renders the page", async () => {
    expect([...sweepAndRerender(server.ctx)]).toHaveLength(1);
    expect(server.ctx.db.prepare("SELECT status, ended_at FROM leases WHERE operator_email = ? AND activated_at IS NOT NULL").get(OPERATOR))
      .toEqual({ status: "ended", ended_at: "2026-12-22T12:00:00.000Z" });
    await pageUntil("/boise-idaho", (b) => !b.includes("Rosemary Bakery"));
  });
});

describe("the server's sweep", () => {
  it("runs on its own every COMMERCE_SWEEP_SECONDS: a listing past its run is stored ended and its buyer emailed", async () => {
    const own = await startTestServer({ SMTP_URL: sink.url, MAIL_SENDER: "off", NOW, ADMIN_TOKEN: "admin-secret", COMMERCE_SWEEP_SECONDS: "1" });
    try {
      addSubscriber(own.ctx.db, "boise-idaho", "reader@example.org");
      const body = await (await own.post("/api/business-checkout", { ...BUSINESS, buyerEmail: "timer@example.com" })).json();
      await payOnHostedPage(body.checkoutUrl, "$10.00");
      own.ctx.config.now = () => new Date(ALL_OVER);
      const status = () => own.ctx.db.prepare("SELECT status FROM listing_orders WHERE id = ?").pluck().get(body.orderId);
      for (let i = 0; i < 40 && status() !== "ended"; i++) await new Promise((r) => setTimeout(r, 100));
      expect(status()).toBe("ended");
      await sendPendingMail(own.ctx);
      expect(sink.messages.filter((m) => m.to.includes("timer@example.com")).map((m) => m.parsed.subject))
        .toContain("Your business listing in Boise, Idaho has ended");
    } finally {
      await own.stop();
    }
  });
});
