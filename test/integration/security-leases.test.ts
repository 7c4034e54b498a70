import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { EVENT, payOnHostedPage, problemOf, leaseTown } from "../helpers/commerce.ts";
import { csrfOf, getWith, postForm, signIn, type Jar } from "../helpers/operator.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";
import { RSS_TYPE, rssFeed, startTownSourcesServer, type TownSourcesServer } from "../helpers/town-sources-server.ts";

// A former operator publishes nothing more: when a lease ends, the notes its operator wrote for
// dates after the end are withheld (kept for staff), the feeds they added are paused (staff's stay),
// and listings waiting for a decision are staff's again. Real HTTP, SQLite, SMTP and the morning.

// 12:00 UTC is 05:00 in Boise (Mountain time), before its 06:00 publication.
const NOW = "2026-11-22T12:00:00.000Z";
const OPERATOR = "former-operator@example.com";
const ADMIN = { Authorization: "Bearer admin-secret" };
let sink: SmtpSink;
let server: TestServer;
let src: TownSourcesServer;
const at = (iso: string) => { server.ctx.config.now = () => new Date(iso); };

beforeAll(async () => {
  sink = await new SmtpSink().start();
  src = await startTownSourcesServer();
  server = await startTestServer({ SMTP_URL: sink.url, MAIL_SENDER: "off", NOW, SUBSCRIBE_RATE_LIMIT: "1000", ADMIN_TOKEN: "admin-secret", FEEDS_ALLOW_PRIVATE: "true" });
  addSubscriber(server.ctx.db, "boise-idaho", "reader@example.org");
  await leaseTown(server, OPERATOR);
  await sendPendingMail(server.ctx);
});
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
  await src?.close();
});

/** The edition as the API serves it, and its markdown as stored (what the twin, the feeds and the email's text part carry). */
const edition = async (date: string) => {
  const { html } = (await (await server.get(`/api/archive/boise-idaho/${date}`)).json()) as { html: string };
  const markdown = server.ctx.db.prepare("SELECT markdown FROM editions WHERE date = ?").pluck().get(date) as string;
  return { html, markdown };
};

describe("a lease that ends stops what its operator set", () => {
  let jar: Jar;
  const desk = async () => (await getWith(jar, `${server.url}/operator/towns/boise-idaho`)).text();

  it("while the lease runs, the operator writes notes (one dated after the lease will end) and adds a feed; staff add one", async () => {
    jar = await signIn(server, sink, OPERATOR);
    const csrf = csrfOf(await desk());
    const note = (date: string, markdown: string) => postForm(jar, `${server.url}/operator/towns/boise-idaho/note`, { csrf, action: "save", date, markdown, authorName: "Pat" });
    expect((await note("2026-12-21", "Last **market** of the year on Saturday.")).status).toBe(303);
    // The attack: a note for a date after the lease's end, linking to a phishing page, then cancel.
    expect((await note("2026-12-23", "Your subscription lapsed: [renew here](https://phish.example.net/login).")).status).toBe(303);

    src.setFeed("/operator-news.rss", { body: rssFeed("Operator Wire", [{ title: "Operator headline: holiday hours", link: "https://wire.example.net/hours", published: "2026-12-20T20:00:00Z" }]), contentType: RSS_TYPE });
    src.setFeed("/staff-news.rss", { body: rssFeed("Boise Gazette", [{ title: "Staff headline: library hours", link: "https://gazette.example.org/library", published: "2026-12-20T20:00:00Z" }]), contentType: RSS_TYPE });
    expect((await postForm(jar, `${server.url}/operator/towns/boise-idaho/feeds`, { csrf, url: `${src.url}/operator-news.rss` })).status).toBe(303);
    expect((await server.post("/admin/towns/boise-idaho/feeds", { url: `${src.url}/staff-news.rss` }, { headers: ADMIN })).status).toBe(200);

    // Cancelled (local mode): the lease runs until the end of its paid period, Dec 22 at 12:00 UTC.
    expect((await postForm(jar, `${server.url}/operator/towns/boise-idaho/lease/cancel`, { csrf })).status).toBe(303);
    expect(server.ctx.db.prepare("SELECT cancel_at FROM leases WHERE operator_email = ?").pluck().get(OPERATOR)).toBe("2026-12-22T12:00:00.000Z");
    // The desk says which scheduled note will not be printed, and from now on refuses a note dated
    // after the lease's last day, with the error next to the field.
    const html = await desk();
    expect(html).toMatch(/data-testid="note-withheld">\(after your lease ends on \w+, December 22, 2026: it will not be printed\)/);
    expect(html.match(/data-testid="note-withheld"/g)).toHaveLength(1);
    expect(html).toContain('max="2026-12-22"');
    const late = await note("2026-12-24", "Too late");
    expect(late.status).toBe(400);
    expect(await late.text()).toContain("Your lease ends on 2026-12-22; a note can be written for an edition until then");
  });

  it("the last morning of the lease still carries the operator's note and fetches the operator's feed", async () => {
    const day = "2026-12-21T14:00:00.000Z"; // 07:00 in Boise
    at(day);
    const before = src.callsTo("/operator-news.rss");
    const s = await runMorning(server.ctx, { now: new Date(day), publish: false });
    expect(s.composed).toBe(1);
    expect(src.callsTo("/operator-news.rss")).toBe(before + 1);
    const { html } = await edition("2026-12-21");
    expect(html).toContain("<strong>market</strong> of the year");
    expect(html).toContain("Operator headline: holiday hours");
    expect(html).toContain("Staff headline: library hours");
  });

  it("after the end: the note dated after it is withheld (kept), the operator's feed is not fetched nor shown, staff's is", async () => {
    const day = "2026-12-23T14:00:00.000Z";
    at(day);
    // Both feeds have news since: only staff's may reach the edition.
    src.setFeed("/operator-news.rss", { body: rssFeed("Operator Wire", [{ title: "Operator headline: win a prize", link: "https://phish.example.net/prize", published: "2026-12-22T20:00:00Z" }]), contentType: RSS_TYPE });
    src.setFeed("/staff-news.rss", { body: rssFeed("Boise Gazette", [{ title: "Staff headline: bridge reopens", link: "https://gazette.example.org/bridge", published: "2026-12-22T20:00:00Z" }]), contentType: RSS_TYPE });
    const operatorFetches = src.callsTo("/operator-news.rss");
    const staffFetches = src.callsTo("/staff-news.rss");
    const s = await runMorning(server.ctx, { now: new Date(day), publish: false });
    expect(s.composed).toBe(1);
    expect(server.ctx.db.prepare("SELECT status FROM leases WHERE operator_email = ?").pluck().get(OPERATOR)).toBe("ended");

    const { html, markdown } = await edition("2026-12-23");
    for (const text of [html, markdown]) {
      expect(text).not.toContain("phish.example.net");
      expect(text).not.toContain("subscription lapsed");
      expect(text).not.toContain("Operator headline");
      expect(text).not.toContain("— Pat, for citydaily");
    }
    expect(html).toContain("Staff headline: bridge reopens");
    expect(src.callsTo("/operator-news.rss")).toBe(operatorFetches);
    expect(src.callsTo("/staff-news.rss")).toBe(staffFetches + 1);

    // Kept, for staff to see: the note's row and the feed, shown paused in the staff list.
    expect(server.ctx.db.prepare("SELECT markdown FROM town_notes WHERE date = '2026-12-23'").pluck().get()).toContain("phish.example.net");
    const feeds = (await (await server.get("/admin/feeds?slug=boise-idaho", { headers: ADMIN })).json()).feeds as Array<{ title: string; addedBy: string; paused?: boolean }>;
    expect(feeds.map((f) => [f.title, f.addedBy, f.paused ?? false])).toEqual([["Operator Wire", OPERATOR, true], ["Boise Gazette", "staff", false]]);
    // The town page's calendar and the town's data read the same running feeds only.
    expect(JSON.stringify(await (await server.get("/api/city/boise-idaho")).json())).not.toContain("Operator Wire");
  });

  it("a listing waiting for a decision goes back to staff: the former operator cannot decide it, staff can", async () => {
    const free = await (await server.post("/api/listing-checkout", { ...EVENT, tier: "free", title: "Winter coat drive", startsAt: "2027-01-09" })).json();
    expect(free.queued).toBeDefined();
    const formerJar = await signIn(server, sink, OPERATOR);
    const home = await (await getWith(formerJar, `${server.url}/operator`)).text();
    expect((await getWith(formerJar, `${server.url}/operator/towns/boise-idaho`)).status).toBe(404);
    const tried = await postForm(formerJar, `${server.url}/operator/towns/boise-idaho/listings/${free.orderId}/approve`, { csrf: csrfOf(home) });
    expect(tried.status).toBe(404);
    expect((await (await server.get(`/api/listing-order?id=${free.orderId}`)).json()).status).toBe("awaiting_review");

    const queue = (await (await server.get("/admin/orders?status=awaiting_review", { headers: ADMIN })).json()).orders as Array<{ id: string }>;
    expect(queue.map((o) => o.id)).toContain(free.orderId);
    const approved = await server.post(`/admin/orders/${free.orderId}/approve`, {}, { headers: ADMIN });
    expect(approved.status).toBe(200);
    expect((await (await server.get(`/api/listing-order?id=${free.orderId}`)).json()).status).toBe("published");
    expect((await problemOf(await server.post(`/admin/orders/${free.orderId}/approve`, {}, { headers: ADMIN }))).code).toBe("conflict");
  });

  it("the next operator sees the paused feed on their desk and may take it up again: it runs under their lease", async () => {
    const NEXT = "next-operator@example.com";
    const lease = await (await server.post("/api/operator-actions", { action: "guest-checkout", city: "Boise", state: "Idaho", email: NEXT })).json();
    await payOnHostedPage(lease.checkoutUrl, "$10.00 a month");
    await sendPendingMail(server.ctx);
    const next = await signIn(server, sink, NEXT);
    const html = await (await getWith(next, `${server.url}/operator/towns/boise-idaho`)).text();
    expect(html).toContain("<strong>Paused</strong>: added under a lease that has ended");
    expect((await postForm(next, `${server.url}/operator/towns/boise-idaho/feeds`, { csrf: csrfOf(html), url: `${src.url}/operator-news.rss` })).status).toBe(303);
    const feeds = (await (await server.get("/admin/feeds?slug=boise-idaho", { headers: ADMIN })).json()).feeds as Array<{ title: string; addedBy: string; paused?: boolean }>;
    expect(feeds.map((f) => [f.title, f.addedBy, f.paused ?? false])).toEqual([["Boise Gazette", "staff", false], ["Operator Wire", NEXT, false]]);
    const day = "2026-12-24T14:00:00.000Z";
    at(day);
    const before = src.callsTo("/operator-news.rss");
    expect((await runMorning(server.ctx, { now: new Date(day), publish: false })).composed).toBe(1);
    expect(src.callsTo("/operator-news.rss")).toBe(before + 1);
  });

  it("staff end a lease at once (/admin/leases): the town is free, the operator's desk closes and their feed pauses", async () => {
    const NEXT = "next-operator@example.com";
    const listed = (await (await server.get("/admin/leases?status=active", { headers: ADMIN })).json()).leases as Array<{ id: string; operatorEmail: string; town: { slug: string } }>;
    expect(listed.map((l) => [l.town.slug, l.operatorEmail])).toEqual([["boise-idaho", NEXT]]);
    const jar = await signIn(server, sink, NEXT);
    const ended = await server.post(`/admin/leases/${listed[0].id}/end`, {}, { headers: ADMIN });
    expect(ended.status).toBe(200);
    expect(await ended.json()).toMatchObject({ status: "ended", endedAt: "2026-12-24T14:00:00.000Z" });
    expect((await problemOf(await server.post(`/admin/leases/${listed[0].id}/end`, {}, { headers: ADMIN }))).code).toBe("conflict");
    expect((await problemOf(await server.post(`/admin/leases/tl_${crypto.randomUUID()}/end`, {}, { headers: ADMIN }))).code).toBe("not_found");
    expect((await problemOf(await server.post(`/admin/leases/${listed[0].id}/end`, {}))).code).toBe("unauthorized");
    expect((await getWith(jar, `${server.url}/operator/towns/boise-idaho`)).status).toBe(404);
    expect((await (await server.get("/api/territories?city=Boise&state=Idaho")).json()).quote.available).toBe(true);
    const feeds = (await (await server.get("/admin/feeds?slug=boise-idaho", { headers: ADMIN })).json()).feeds as Array<{ title: string; paused?: boolean }>;
    expect(feeds.map((f) => [f.title, f.paused ?? false])).toEqual([["Boise Gazette", false], ["Operator Wire", true]]);
  });
});
