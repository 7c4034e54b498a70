import crypto from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { sweepAndRerender } from "../../src/services/commerce/sweep-schedule.ts";
import { EVENT, payOnHostedPage, leaseTown } from "../helpers/commerce.ts";
import { askForLink, csrfOf, getWith, Jar, mailedLink, postForm, signIn, useLink } from "../helpers/operator.ts";
import { geoidOf } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";
import { RSS_TYPE, rssFeed, startTownSourcesServer, type TownSourcesServer } from "../helpers/town-sources-server.ts";

// The operator desk over real HTTP, real SQLite and real SMTP on the local payment provider: sign-in
// by an emailed one-time link, the town's desk (listings to review, audience, money, lease).

const NOW = "2026-11-22T12:00:00.000Z";
// 5:00 in Boise: the desk is written for a morning before the edition is out (published from 6 here).
const BEFORE_PUBLICATION = { NOW, PUBLISH_HOUR: "6" };
const OPERATOR = "desk-operator@example.com";
let sink: SmtpSink;
let server: TestServer;
let src: TownSourcesServer;

const at = (iso: string) => { server.ctx.config.now = () => new Date(iso); };
const subscriberAt = (slug: string, email: string, createdIso: string, status = "active", updatedIso = createdIso) =>
  server.ctx.db.prepare("INSERT INTO subscribers (email, place_geoid, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?)").run(email, geoidOf(server.ctx.db, slug), status, createdIso, updatedIso);

beforeAll(async () => {
  sink = await new SmtpSink().start();
  src = await startTownSourcesServer();
  server = await startTestServer({ SMTP_URL: sink.url, MAIL_SENDER: "off", ...BEFORE_PUBLICATION, SUBSCRIBE_RATE_LIMIT: "1000", ADMIN_TOKEN: "admin-secret", FEEDS_ALLOW_PRIVATE: "true" });
  subscriberAt("boise-idaho", "r1@example.org", "2026-11-01T10:00:00.000Z");
  subscriberAt("boise-idaho", "r2@example.org", "2026-11-21T18:00:00.000Z");
  subscriberAt("boise-idaho", "r3@example.org", "2026-11-22T09:00:00.000Z");
  subscriberAt("boise-idaho", "gone@example.org", "2026-11-02T10:00:00.000Z", "unsubscribed", "2026-11-21T20:00:00.000Z");
  // Leases Boise for OPERATOR through the real checkout (the local hosted page).
  await leaseTown(server, OPERATOR);
  await sendPendingMail(server.ctx);
});
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
  await src?.close();
});

describe("sign-in by emailed one-time link", () => {
  it("answers the same for an address without a town, and emails only the operator", async () => {
    const before = sink.messages.length;
    const stranger = await (await askForLink(server, new Jar(), "nobody@example.com")).text();
    const operator = await (await askForLink(server, new Jar(), OPERATOR)).text();
    expect(stranger.replace("nobody@example.com", "X")).toBe(operator.replace(OPERATOR, "X"));
    expect(operator).toContain("If <strong>desk-operator@example.com</strong> runs a town on citydaily, a sign-in link is on its way");
    await sendPendingMail(server.ctx);
    const sent = sink.messages.slice(before);
    expect(sent.map((m) => m.to)).toEqual([[OPERATOR]]);
    expect(sent[0].parsed.subject).toBe("Your citydaily sign-in link");
    // The link carries a random token, never the address (nor its base64).
    const link = /(http:\/\/\S+\/operator\/sign-in\/[\w-]+)/.exec(sent[0].parsed.text ?? "")![1];
    expect(link).not.toContain("desk-operator");
    expect(link).not.toContain(Buffer.from(OPERATOR).toString("base64url").slice(0, 12));
    // The HTML part shows words, not the long URL (the email stays narrow at 390 px).
    expect(sent[0].parsed.html).toContain(">Sign in to the operator desk</a>");
    // Its expiry on Boise's clock (12:15 UTC), and a footer about signing in, not a purchase.
    expect(sent[0].parsed.text).toContain("It works once, until 5:15 AM MST on November 22.");
    for (const part of [sent[0].parsed.text, sent[0].parsed.html]) {
      expect(part).toContain("because a sign-in link to the operator desk was asked for with this address");
      expect(part).not.toContain("about your purchase");
    }
  });

  it("works once, within 15 minutes; stores only hashes; the sent email's payload is cleared", async () => {
    const jar = new Jar();
    await askForLink(server, jar, OPERATOR);
    const link = await mailedLink(server, sink, OPERATOR);
    const token = link.split("/").at(-1)!;
    const tokens = server.ctx.db.prepare("SELECT token_hash FROM operator_login_tokens").pluck().all() as string[];
    expect(tokens).toContain(crypto.createHash("sha256").update(token).digest("hex"));
    expect(JSON.stringify(server.ctx.db.prepare("SELECT * FROM operator_login_tokens").all())).not.toContain(token);

    // Opening the link does not use it (mail scanners open links); pressing Sign in does.
    expect((await getWith(new Jar(), link)).status).toBe(200);
    const first = await useLink(jar, link);
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe("/operator");
    const cookie = first.headers.getSetCookie().find((c) => c.startsWith("cd_operator="))!;
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toMatch(/; Path=\/operator/);
    expect(cookie).not.toMatch(/Secure/); // http://127.0.0.1: a Secure cookie would never come back
    const session = cookie.split(";")[0].split("=")[1];
    expect(JSON.stringify(server.ctx.db.prepare("SELECT * FROM operator_sessions").all())).not.toContain(session);
    const towns = await (await getWith(jar, `${server.url}/operator`)).text();
    expect(towns).toContain('<a href="/operator/towns/boise-idaho">Boise, Idaho</a>');

    // A second use fails, in another browser too.
    const again = await useLink(new Jar(), link);
    expect(again.status).toBe(410);
    expect(await again.text()).toContain("This sign-in link no longer works");
    // Sent sign-in emails keep no usable link in the outbox.
    await askForLink(server, new Jar(), "nobody@example.com");
    const payloads = server.ctx.db.prepare("SELECT payload FROM outbox WHERE template = 'operator_sign_in' AND status = 'sent'").pluck().all() as string[];
    expect(payloads.length).toBeGreaterThan(0);
    expect(payloads.every((p) => p === "{}")).toBe(true);

    // A link older than 15 minutes does not sign in.
    const late = new Jar();
    await askForLink(server, late, OPERATOR);
    const stale = await mailedLink(server, sink, OPERATOR);
    at("2026-11-22T12:16:00.000Z");
    try {
      expect((await useLink(late, stale)).status).toBe(410);
    } finally {
      at(NOW);
    }
  });

  it("limits links per address, refuses forms without their CSRF token, signs out, and retires the old links", async () => {
    const jar = new Jar();
    let last: Response | undefined;
    for (let i = 0; i < 6; i++) last = await askForLink(server, jar, "limited@example.com");
    expect(last!.status).toBe(429);
    expect(await last!.text()).toMatch(/Too many sign-in links asked for this address/);
    // Another address is not affected.
    expect((await askForLink(server, jar, "other@example.com")).status).toBe(200);

    const op = await signIn(server, sink, OPERATOR);
    const noCsrf = await postForm(op, `${server.url}/operator/towns/boise-idaho/lease/cancel`, {});
    expect(noCsrf.status).toBe(403);
    expect(server.ctx.db.prepare("SELECT cancel_at FROM leases WHERE operator_email = ?").pluck().get(OPERATOR)).toBeNull();
    const wrongSignIn = await postForm(new Jar(), `${server.url}/operator/sign-in`, { email: OPERATOR, csrf: "forged" });
    expect(wrongSignIn.status).toBe(403);

    const page = await (await getWith(op, `${server.url}/operator`)).text();
    const out = await postForm(op, `${server.url}/operator/sign-out`, { csrf: csrfOf(page) });
    expect(out.status).toBe(303);
    expect((await getWith(op, `${server.url}/operator/towns/boise-idaho`)).headers.get("location")).toBe("/operator");

    const old = await fetch(`${server.url}/operator/${Buffer.from(OPERATOR).toString("base64url")}.${"a".repeat(32)}`);
    expect(old.status).toBe(404);
    expect(await old.text()).toContain("This operator link no longer works");
  });

  it("marks the session cookie Secure when the site is served over https", async () => {
    const https = await startTestServer({ SMTP_URL: sink.url, MAIL_SENDER: "off", ...BEFORE_PUBLICATION, SUBSCRIBE_RATE_LIMIT: "1000", BASE_URL: "https://citydaily.example", LOCAL_CHECKOUT: "on" });
    try {
      const lease = await (await https.post("/api/operator-actions", { action: "guest-checkout", city: "Nampa", state: "Idaho", email: "secure-op@example.com" })).json();
      // Pay on the hosted page (its success page is on the https origin, which the test does not follow).
      const checkout = lease.checkoutUrl.replace("https://citydaily.example", https.url);
      const paid = await fetch(`${checkout}/pay`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "email=secure-op%40example.com", redirect: "manual" });
      expect(paid.status).toBe(303);
      const jar = new Jar();
      const form = await getWith(jar, `${https.url}/operator`);
      expect(form.headers.getSetCookie()[0]).toMatch(/^cd_operator_pre=[\w-]{43}; Path=\/operator; Max-Age=3600; HttpOnly; SameSite=Lax; Secure$/);
      expect((await postForm(jar, `${https.url}/operator/sign-in`, { csrf: csrfOf(await form.text()), email: "secure-op@example.com" })).status).toBe(200);
      const link = (await mailedLink(https, sink, "secure-op@example.com")).replace("https://citydaily.example", https.url);
      const res = await useLink(jar, link);
      expect(res.status).toBe(303);
      expect(res.headers.getSetCookie().find((c) => c.startsWith("cd_operator="))).toMatch(/^cd_operator=[\w-]{43}; Path=\/operator; Max-Age=43200; HttpOnly; SameSite=Lax; Secure$/);
    } finally {
      await https.stop();
    }
  });

  it("shows an invalid address next to the field and keeps what was typed", async () => {
    const res = await askForLink(server, new Jar(), "not-an-address");
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('value="not-an-address" aria-invalid="true" aria-describedby="email-error"');
    expect(html).toContain('<p class="field-error" id="email-error">Enter the email address you leased your town with.</p>');
  });
});

describe("a town lease's checkout", () => {
  it("gives its deadlines on the town's clock, not in UTC", async () => {
    // Meridian, Idaho is on Boise's clock: 12:00 UTC is 5:00 AM MST; the reservation holds 30 minutes.
    const lease = await (await server.post("/api/operator-actions", { action: "guest-checkout", city: "Meridian", state: "Idaho", email: "meridian-op@example.com" })).json() as { checkoutUrl: string };
    const page = await (await fetch(lease.checkoutUrl)).text();
    expect(page).toContain("This link is open until 5:30 AM MST on November 22.");
    expect(page).not.toContain("UTC");
    const cancel = /<form method="post" action="([^"]+\/cancel)">/.exec(page)![1]!;
    const cancelled = await fetch(new URL(cancel, lease.checkoutUrl), { method: "POST", redirect: "manual" });
    const after = await (await fetch(new URL(cancelled.headers.get("location")!, lease.checkoutUrl))).text();
    expect(after).toContain("Nothing was charged. The town stays reserved for you until 5:30 AM MST on November 22.");
  });
});

describe("the town's desk", () => {
  let jar: Jar;
  beforeAll(async () => {
    jar = await signIn(server, sink, OPERATOR);
  });
  const desk = async () => (await getWith(jar, `${server.url}/operator/towns/boise-idaho`)).text();

  it("reviews free listings of the town: reject needs a reason (kept when missing), approve publishes, both recorded with who", async () => {
    const free = await (await server.post("/api/listing-checkout", { ...EVENT, tier: "free", title: "Library story hour" })).json();
    const other = await (await server.post("/api/listing-checkout", { ...EVENT, tier: "free", title: "Bad one", url: "https://bad-one.example.net/" })).json();
    const elsewhere = await (await server.post("/api/listing-checkout", { ...EVENT, slug: "st-louis-missouri", tier: "free", title: "Not yours" })).json().catch(() => undefined);
    let html = await desk();
    expect(html).toContain("Library story hour");
    expect(html).not.toContain("Not yours");

    const csrf = csrfOf(html);
    const empty = await postForm(jar, `${server.url}/operator/towns/boise-idaho/listings/${other.orderId}/reject`, { csrf, reason: " x " });
    expect(empty.status).toBe(400);
    const shown = await empty.text();
    expect(shown).toContain(`aria-describedby="reason-${other.orderId}-error"> x </textarea>`);
    expect(shown).toContain("Say why, in a few words: the buyer reads it.");
    expect((await (await server.get(`/api/listing-order?id=${other.orderId}`)).json()).status).toBe("awaiting_review");

    const rejected = await postForm(jar, `${server.url}/operator/towns/boise-idaho/listings/${other.orderId}/reject`, { csrf, reason: "Not a public event" });
    expect(rejected.status).toBe(303);
    const approved = await postForm(jar, `${server.url}/operator/towns/boise-idaho/listings/${free.orderId}/approve`, { csrf });
    expect(approved.status).toBe(303);
    expect((await (await server.get(`/api/listing-order?id=${free.orderId}`)).json()).status).toBe("published");
    const r = await (await server.get(`/api/listing-order?id=${other.orderId}`)).json();
    expect(r).toMatchObject({ status: "rejected", rejected: { reason: "Not a public event" } });
    const city = await (await server.get("/api/city/boise-idaho")).json();
    expect(city.events.map((e: { title: string }) => e.title)).toContain("Library story hour");
    const decisions = server.ctx.db.prepare("SELECT order_id, decision, reason, by_role, by_who FROM listing_decisions ORDER BY id").all();
    expect(decisions).toEqual([
      { order_id: other.orderId, decision: "rejected", reason: "Not a public event", by_role: "operator", by_who: OPERATOR },
      { order_id: free.orderId, decision: "approved", reason: null, by_role: "operator", by_who: OPERATOR },
    ]);
    // The buyer is told it was rejected; the operator's reason is on the order page, not in the email.
    await sendPendingMail(server.ctx);
    const told = sink.messages.filter((m) => (m.parsed.text ?? "").includes(`/orders/${other.orderId}`));
    expect(told.map((m) => m.parsed.subject)).toEqual(["Your event listing for Saturday, November 28, 2026 in Boise, Idaho was not accepted"]);
    expect(told[0].parsed.text).not.toContain("Not a public event");
    expect(await (await server.get(`/orders/${other.orderId}`)).text()).toContain("Not a public event");

    // Deciding twice, or on another town's listing, changes nothing.
    expect((await postForm(jar, `${server.url}/operator/towns/boise-idaho/listings/${free.orderId}/reject`, { csrf, reason: "Changed my mind" })).status).toBe(409);
    if (elsewhere?.orderId) {
      expect((await postForm(jar, `${server.url}/operator/towns/boise-idaho/listings/${elsewhere.orderId}/approve`, { csrf })).status).toBe(409);
      expect((await (await server.get(`/api/listing-order?id=${elsewhere.orderId}`)).json()).status).toBe("awaiting_review");
    }
    // Staff keep their override, recorded as staff.
    const staffOne = await (await server.post("/api/listing-checkout", { ...EVENT, tier: "free", title: "Staff decides" })).json();
    const res = await server.post(`/admin/orders/${staffOne.orderId}/approve`, {}, { headers: { Authorization: "Bearer admin-secret" } });
    expect(res.status).toBe(200);
    expect(server.ctx.db.prepare("SELECT by_role, by_who FROM listing_decisions WHERE order_id = ?").get(staffOne.orderId)).toEqual({ by_role: "staff", by_who: "http" });
    // Staff see who decided, on the admin order.
    const adminView = await (await server.get(`/admin/orders/${other.orderId}`, { headers: { Authorization: "Bearer admin-secret" } })).json();
    expect(adminView.decisions).toEqual([{ decision: "rejected", reason: "Not a public event", byRole: "operator", byWho: OPERATOR, createdAt: NOW }]);
    html = await desk();
    expect(html).not.toContain("Staff decides");
  });

  it("shows the audience: subscribers now, new and unsubscribed per local day, as a chart and a table", async () => {
    const html = await desk();
    expect(html).toMatch(/data-testid="subscribers">3</);
    expect(html).toContain('<svg class="chart" viewBox="0 0 600 170" role="img"');
    // Boise is on Mountain time: 18:00 UTC on Nov 21 is Nov 21 there, 09:00 UTC on Nov 22 is Nov 22 02:00.
    expect(html).toContain('<tr><th scope="row">Sat, Nov 21</th><td class="num">1</td><td class="num">1</td></tr>');
    expect(html).toContain('<tr><th scope="row">Sun, Nov 22</th><td class="num">1</td><td class="num">0</td></tr>');
    // gone@ joined on Nov 2 and left on Nov 21: counted on both days.
    expect(html).toContain('<tr><th scope="row">Mon, Nov 2</th><td class="num">1</td><td class="num">0</td></tr>');
    expect(html).toContain("In 30 days: <strong>4 new</strong> and <strong>1 unsubscribed</strong>.");
  });

  it("shows the money: a statement per month with the lease charge netted, as a table and CSV", async () => {
    const paid = await (await server.post("/api/listing-checkout", { ...EVENT, tier: "standard", title: "Paid fair" })).json();
    await payOnHostedPage(paid.checkoutUrl, "$10.00");
    const html = await desk();
    // $10.00 - fee (29 + 30 = 59 cents) = 941; half rounded down = 470.
    expect(html).toContain('<tr><th scope="row">November 2026</th><td class="num">1</td><td class="num">$10.00</td><td class="num">$0.59</td><td class="num">$4.70</td><td class="num">$10.00</td><td class="num">-$5.30</td><td class="num">$0.00</td></tr>');
    const csv = await getWith(jar, `${server.url}/operator/towns/boise-idaho/statement.csv`);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(await csv.text()).toBe("town,month,listings_sold,gross_usd,fees_usd,your_share_usd,lease_charge_usd,net_usd,paid_out_usd\r\nboise-idaho,2026-11,1,10.00,0.59,4.70,10.00,-5.30,0.00\r\n");
    // Another operator's town is not theirs to read.
    expect((await getWith(jar, `${server.url}/operator/towns/st-louis-missouri`)).status).toBe(404);
  });

  it("writes tomorrow's note: errors next to the field with the text kept, a preview as the edition shows it, saved for the next edition", async () => {
    const html = await desk();
    // 12:00 UTC is 05:00 in Boise, before the 06:00 publication: the next edition is today's.
    expect(html).toContain('name="date" type="date" value="2026-11-22"');
    const csrf = csrfOf(html);
    const url = `${server.url}/operator/towns/boise-idaho/note`;
    const unsigned = await postForm(jar, url, { csrf, action: "save", markdown: "The *pool* opens <script>x</script>", authorName: "", date: "2026-11-22" });
    expect(unsigned.status).toBe(400);
    const page = await unsigned.text();
    expect(page).toContain("The *pool* opens &lt;script&gt;x&lt;/script&gt;</textarea>");
    expect(page).toMatch(/id="note-author-error">Sign the note/);
    expect(server.ctx.db.prepare("SELECT COUNT(*) FROM town_notes").pluck().get()).toBe(0);

    const hostile = await (await postForm(jar, url, { csrf, action: "preview", markdown: "Hi <script>alert(1)</script> [x](javascript:alert(1))", authorName: "<b>Dana</b>", date: "2026-11-22" })).text();
    // The field keeps what was typed (Astro leaves `<` as it is inside a quoted attribute, where it is only text); nowhere is it markup.
    expect(hostile).toContain('autocomplete="name" value="<b>Dana</b>"');
    expect(hostile.replace('value="<b>Dana</b>"', "")).not.toMatch(/<script>alert|href="javascript:|<b>Dana/);
    const preview = await (await postForm(jar, url, { csrf, action: "preview", markdown: "The *pool* opens at [noon](https://boise.example.gov/pool).", authorName: "Dana", date: "2026-11-22" })).text();
    expect(preview).toMatch(/data-testid="note-preview">[\s\S]*<em>pool<\/em>[\s\S]*href="https:\/\/boise\.example\.gov\/pool"[\s\S]*Dana/);
    expect(server.ctx.db.prepare("SELECT COUNT(*) FROM town_notes").pluck().get()).toBe(0);

    const saved = await postForm(jar, url, { csrf, action: "save", markdown: "The *pool* opens at noon.", authorName: "Dana", date: "2026-11-22" });
    expect(saved.status).toBe(303);
    const after = await desk();
    expect(after).toMatch(/<strong>Sunday, November 22, 2026<\/strong> \(next edition\)/);
    expect(after).toMatch(/data-testid="note-2026-11-22">[\s\S]*<em>pool<\/em>/);
    expect(server.ctx.db.prepare("SELECT updated_by FROM town_notes").pluck().get()).toBe(OPERATOR);
  });

  it("adds and removes the town's feeds through the feeds service, with each feed's status", async () => {
    src.setFeed("/boise-news.rss", { body: rssFeed("Boise Gazette", [
      { title: "Bridge reopens on Capitol Blvd", link: "https://gazette.example.org/bridge", published: "2026-11-21T15:00:00Z" },
      { title: "Library extends hours", link: "https://gazette.example.org/library", published: "2026-11-22T08:00:00Z" },
    ]), contentType: RSS_TYPE });
    src.setFeed("/not-a-feed", { body: "<html><body>hello</body></html>", contentType: "text/html" });
    const csrf = csrfOf(await desk());
    const url = `${server.url}/operator/towns/boise-idaho/feeds`;
    const bad = await postForm(jar, url, { csrf, url: `${src.url}/not-a-feed` });
    expect(bad.status).toBe(400);
    const badPage = await bad.text();
    expect(badPage).toContain(`value="${src.url}/not-a-feed" placeholder="https://" aria-invalid="true" aria-describedby="feed-url-error"`);
    expect(badPage).toMatch(/<p class="field-error" id="feed-url-error">[^<]+<\/p>/);

    expect((await postForm(jar, url, { csrf, url: `${src.url}/boise-news.rss` })).status).toBe(303);
    const html = await desk();
    expect(html).toContain("<strong>Boise Gazette</strong> (RSS)");
    // On Boise's clock: 12:00 UTC is 5:00 AM MST.
    expect(html).toMatch(/data-testid="feed-status">Working\. Last fetch: November 22, 2026 at 5:00 AM MST\. Items: 2\./);
    const id = /feeds\/(\d+)\/remove/.exec(html)![1];
    expect(server.ctx.db.prepare("SELECT added_by FROM town_feeds WHERE id = ?").pluck().get(Number(id))).toBe(OPERATOR);
    expect((await postForm(jar, `${server.url}/operator/towns/boise-idaho/feeds/${id}/remove`, { csrf })).status).toBe(303);
    expect(await desk()).toContain("No feed yet.");
  });

  it("cancels the lease (local mode): the town stays theirs until the end of the paid period", async () => {
    const html = await desk();
    expect(html).toContain("The current period is paid until December 22, 2026 at 5:00 AM MST");
    expect(html).not.toContain("UTC");
    const res = await postForm(jar, `${server.url}/operator/towns/boise-idaho/lease/cancel`, { csrf: csrfOf(html) });
    expect(res.status).toBe(303);
    const after = await desk();
    expect(after).toContain("Cancelled. The town stays yours until December 22, 2026 at 5:00 AM MST");
    expect((await (await server.get("/api/territories")).json()).claimedCount).toBe(1);
    at("2026-12-22T12:00:01.000Z");
    try {
      expect((await (await server.get("/api/territories")).json()).claimedCount).toBe(0);
      // The read changed nothing; the server's minute sweep stores the end on the paid period's last instant.
      sweepAndRerender(server.ctx);
      expect(server.ctx.db.prepare("SELECT status, ended_at FROM leases WHERE operator_email = ? AND activated_at IS NOT NULL").get(OPERATOR)).toEqual({ status: "ended", ended_at: "2026-12-22T12:00:00.000Z" });
    } finally {
      at(NOW);
    }
  });
});

describe("hostile input on the desk", () => {
  it("random paths, methods, bodies and cookies under /operator: never a 5xx, nothing unescaped, no session made", async () => {
    const nasty = ["<script>alert(1)</script>", "%00", "..", "%2e%2e", "'\"><img src=x onerror=1>", "a".repeat(300)];
    const segment = fc.oneof(fc.constantFrom(...nasty.map(encodeURIComponent), "sign-in", "sign-out", "towns", "boise-idaho", "listings", "approve", "reject", "note", "feeds", "remove", "payouts", "connect", "return", "statement.csv", "lease", "cancel"), fc.webSegment());
    const sessionsBefore = server.ctx.db.prepare("SELECT COUNT(*) FROM operator_sessions").pluck().get();
    await fc.assert(fc.asyncProperty(fc.array(segment, { minLength: 0, maxLength: 5 }), fc.constantFrom("GET", "POST", "HEAD"), fc.string({ maxLength: 60 }), fc.string({ maxLength: 60 }), async (segments, method, body, cookie) => {
      const url = `${server.url}/operator${segments.length ? `/${segments.join("/")}` : ""}`;
      const res = await fetch(url, {
        method, redirect: "manual",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: `cd_operator=${encodeURIComponent(cookie)}; cd_operator_pre=${encodeURIComponent(cookie)}` },
        body: method === "POST" ? `csrf=${encodeURIComponent(body)}&email=${encodeURIComponent(body)}&reason=<script>alert(1)</script>` : undefined,
      });
      expect(res.status, `${method} ${url}`).toBeLessThan(500);
      const text = method === "HEAD" ? "" : await res.text();
      expect(text).not.toMatch(/<script>alert\(1\)<\/script>|<img src=x onerror/);
    }), { numRuns: 200 });
    expect(server.ctx.db.prepare("SELECT COUNT(*) FROM operator_sessions").pluck().get()).toBe(sessionsBefore);
    expect(server.ctx.db.pragma("integrity_check", { simple: true })).toBe("ok");
  }, 60_000);
});
