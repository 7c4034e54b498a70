import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { BUSINESS, EVENT, problemOf } from "../helpers/commerce.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";

// Commerce as a security tester tried it, over real HTTP, SQLite and SMTP: a business's domain
// poisoned from another town, towns squatted on without a payment (the spec's hold needs no email, so
// the limit is per client), and mail carrying an operator's words to an address nobody confirmed.

const NOW = "2026-11-22T12:00:00.000Z";
const ADMIN = { Authorization: "Bearer admin-secret" };
let sink: SmtpSink;
let server: TestServer;
const at = (iso: string) => { server.ctx.config.now = () => new Date(iso); };

beforeAll(async () => {
  sink = await new SmtpSink().start();
  server = await startTestServer({ SMTP_URL: sink.url, MAIL_SENDER: "off", NOW, SUBSCRIBE_RATE_LIMIT: "1000", ADMIN_TOKEN: "admin-secret" });
  addSubscriber(server.ctx.db, "boise-idaho", "reader@example.org");
  addSubscriber(server.ctx.db, "st-louis-missouri", "reader@example.org");
});
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
});

/** A POST from another loopback address (another client), as node:http sends it. */
function postFrom(localAddress: string, path: string, body: unknown): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }> {
  const url = new URL(path, server.url);
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", localAddress, headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(data) } }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (c) => (text += c)).on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(text) }));
    });
    req.on("error", reject);
    req.end(data);
  });
}

describe("domain reputation: only a person's rejection, in that town, for 90 days", () => {
  const business = async (slug: string, title: string, url: string) => (await server.post("/api/business-checkout", { ...BUSINESS, slug, title, url })).json();

  it("a listing rejected by the screen in one town does not hold a clean listing of the same domain in another", async () => {
    const poison = await business("st-louis-missouri", "Casino night at the bakery", "https://rosebakery.example/events");
    expect(poison.rejected.rule).toBe("gambling");
    const clean = await business("boise-idaho", "Rose Bakery", "https://rosebakery.example/");
    expect(clean.held).toBeUndefined();
    expect(clean.checkoutUrl).toMatch(/\/checkout\/cs_local_/);
    // Nor in the same town: the screen's rejection says nothing about who owns the domain.
    const sameTown = await business("st-louis-missouri", "Rose Bakery", "https://www.rosebakery.example/");
    expect(sameTown.checkoutUrl).toBeDefined();
  });

  it("a person's rejection holds the domain in that town only, and lapses after 90 days", async () => {
    const first = await (await server.post("/api/business-checkout", { ...BUSINESS, tier: "free", title: "Shady Deals", url: "https://shady-deals.example/" })).json();
    expect(first.queued).toBeDefined();
    expect((await server.post(`/admin/orders/${first.orderId}/reject`, { reason: "Not a real business" }, { headers: ADMIN })).status).toBe(200);

    const again = await business("boise-idaho", "Shady Deals II", "https://shop.shady-deals.example/new");
    expect(again.held).toMatchObject({ rule: "rejected-domain", reason: "A person rejected a listing linking to this domain in this town in the last 90 days; a person will look." });
    expect(again.checkoutUrl).toBeUndefined();
    const elsewhere = await business("st-louis-missouri", "Shady Deals", "https://shady-deals.example/");
    expect(elsewhere.held).toBeUndefined();
    expect(elsewhere.checkoutUrl).toBeDefined();

    at("2027-02-19T12:00:00.000Z"); // 89 days on: still held
    try {
      expect((await business("boise-idaho", "Shady Deals III", "https://shady-deals.example/x")).held?.rule).toBe("rejected-domain");
      at("2027-02-21T12:00:00.000Z"); // 91 days on: lapsed
      const later = await business("boise-idaho", "Shady Deals IV", "https://shady-deals.example/y");
      expect(later.held).toBeUndefined();
      expect(later.checkoutUrl).toBeDefined();
    } finally {
      at(NOW);
    }
  });
});

describe("holding towns: at most 3 at once per client, with or without an email", () => {
  const TOWNS = [["Nampa", "Idaho"], ["Meridian", "Idaho"], ["Caldwell", "Idaho"], ["Pocatello", "Idaho"], ["Idaho Falls", "Idaho"], ["Twin Falls", "Idaho"], ["Coeur d'Alene", "Idaho"]];
  const hold = (city: string, state: string, email?: string) => server.post("/api/operator-actions", { action: "guest-checkout", city, state, ...(email ? { email } : {}) });

  it("takes a hold without an email, as the interface spec documents the body (the payment page asks for it)", async () => {
    // Another client than the next test's, whose holds this one must not count against.
    const res = await postFrom("127.0.0.3", "/api/operator-actions", { action: "guest-checkout", city: "Moscow", state: "Idaho" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ slug: "moscow-idaho", checkoutUrl: expect.stringMatching(/\/checkout\/cs_local_/) });
    expect((await (await server.get("/api/territories?city=Moscow&state=Idaho")).json()).quote.available).toBe(false);
  });

  it("seven holds at once from one client: 3 succeed, the other 4 answer 429 with Retry-After until the first lapses", async () => {
    // The spec's body (no email) and a body with one count alike.
    const answers = await Promise.all(TOWNS.map(([city, state], i) => hold(city, state, i % 2 ? "squatter@example.com" : undefined)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 200, 429, 429, 429, 429]);
    for (const r of answers.filter((a) => a.status === 429)) {
      expect(r.headers.get("retry-after")).toBe("1800");
      const p = await problemOf(r);
      expect(p.code).toBe("rate_limited");
      expect(p.detail).toContain("at most 3 at once");
    }
    expect(server.ctx.db.prepare("SELECT COUNT(*) FROM leases WHERE status = 'reserved'").pluck().get()).toBe(3 + 1); // and the other client's Moscow
    // The stored key is not the client's address.
    expect(JSON.stringify(server.ctx.db.prepare("SELECT reserved_by FROM leases").all())).not.toContain("127.0.0.1");

    // Another client is not held back by this one.
    const other = await postFrom("127.0.0.2", "/api/operator-actions", { action: "guest-checkout", city: "Lewiston", state: "Idaho", email: "buyer@example.com" });
    expect(other.status).toBe(200);
    expect(other.body.slug).toBe("lewiston-idaho");

    at("2026-11-22T12:20:00.000Z");
    try {
      const still = await hold("Rexburg", "Idaho");
      expect(still.status).toBe(429);
      expect(still.headers.get("retry-after")).toBe("600");
      at("2026-11-22T12:30:01.000Z"); // the three holds lapsed: the client may hold again
      expect((await hold("Rexburg", "Idaho", "squatter@example.com")).status).toBe(200);
    } finally {
      at(NOW);
    }
  });
});

describe("mail to an address nobody confirmed carries no one else's words", () => {
  const PHISH = "Your account is suspended, visit https://phish.example.net/login";
  const mailTo = async (email: string) => {
    await sendPendingMail(server.ctx);
    return sink.messages.filter((m) => m.to.includes(email));
  };

  it("the rejection email has neither the reviewer's reason nor the buyer's title; the order page it links to shows both", async () => {
    const order = await (await server.post("/api/listing-checkout", { ...EVENT, tier: "free", title: "Urgent: confirm your account today", buyerEmail: "victim@example.com" })).json();
    expect(order.queued).toBeDefined();
    expect((await server.post(`/admin/orders/${order.orderId}/reject`, { reason: PHISH }, { headers: ADMIN })).status).toBe(200);

    const mail = await mailTo("victim@example.com");
    expect(mail).toHaveLength(1);
    const m = mail[0];
    expect(m.parsed.subject).toBe("Your event listing for Saturday, November 28, 2026 in Boise, Idaho was not accepted");
    for (const part of [m.parsed.subject ?? "", m.parsed.text ?? "", String(m.parsed.html)]) {
      expect(part).not.toContain("phish.example.net");
      expect(part).not.toContain("suspended");
      expect(part).not.toContain("confirm your account");
    }
    expect(m.parsed.text).toContain(`Their reason is on your order page: ${server.url}/orders/${order.orderId}`);
    expect(m.parsed.text).toContain(`Free event listing for Saturday, November 28, 2026 in Boise, Idaho (order ${order.orderId})`);
    // Nor is it stored in the outbox to be rendered later.
    expect(JSON.stringify(server.ctx.db.prepare("SELECT payload FROM outbox WHERE to_email = ?").pluck().all("victim@example.com"))).not.toContain("phish.example.net");

    const page = await (await server.get(`/orders/${order.orderId}`)).text();
    expect(page).toContain('A person who reviewed it gave this reason: <q data-testid="reason">Your account is suspended, visit https://phish.example.net/login</q>');
    expect(page).toContain("Urgent: confirm your account today");
  });

  it("nor does any other buyer email: a published listing's names it by kind, day, town and order", async () => {
    const order = await (await server.post("/api/listing-checkout", { ...EVENT, tier: "free", title: "Call 555-0100 to claim your refund", url: "https://winter-market.example/", buyerEmail: "someone@example.com" })).json();
    expect((await server.post(`/admin/orders/${order.orderId}/approve`, {}, { headers: ADMIN })).status).toBe(200);
    const [m] = await mailTo("someone@example.com");
    expect(m.parsed.subject).toBe("Your event listing for Saturday, November 28, 2026 in Boise, Idaho is live");
    expect(`${m.parsed.text}${m.parsed.html}`).not.toContain("claim your refund");
    expect(m.parsed.text).toContain(`/orders/${order.orderId}`);
  });
});
