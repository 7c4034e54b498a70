import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { addEdition, geoidOf } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";

// 12:00 UTC: 07:00 in St. Louis (its edition of the day may exist), 02:00 in Honolulu.
const NOW = "2026-11-22T12:00:00.000Z";
const ST_LOUIS = { email: "reader@example.org", city: "St. Louis", state: "Missouri", slug: "st-louis-missouri" };

let sink: SmtpSink;
let server: TestServer;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  server = await startTestServer({
    SMTP_URL: sink.url, MAIL_SENDER: "off", MORNING_SCHEDULE: "off", NOW, SUBSCRIBE_RATE_LIMIT: "1000",
    ADMIN_TOKEN: "admin-secret", POSTAL_ADDRESS: "citydaily, 100 Main St, Springfield, IL 62701",
  });
});
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
});

const db = () => server.ctx.db;
const subscriberRows = (email: string) =>
  db().prepare("SELECT s.*, p.slug FROM subscribers s JOIN places p ON p.geoid = s.place_geoid WHERE email = ? ORDER BY s.id").all(email) as Array<Record<string, unknown>>;
const outboxOf = (email: string) =>
  db().prepare("SELECT o.kind, o.edition_id, o.status FROM outbox o JOIN subscribers s ON s.id = o.subscriber_id WHERE s.email = ? ORDER BY o.id").all(email) as Array<{ kind: string; edition_id: number | null; status: string }>;

async function problem(res: Response) {
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  return (await res.json()) as { code: string; status: number; issues?: Array<{ path: string; message: string }>; detail: string };
}

describe("POST /api/subscribe: validation", () => {
  it("names every bad field in issues[]", async () => {
    const res = await server.post("/api/subscribe", { email: "not-an-email", city: "", slug: "St Louis" });
    expect(res.status).toBe(400);
    const body = await problem(res);
    expect(body.code).toBe("validation_error");
    const paths = body.issues!.map((i) => i.path).sort();
    expect(paths).toEqual(expect.arrayContaining(["city", "email", "slug", "state"]));
  });

  it("rejects over-long fields", async () => {
    const res = await server.post("/api/subscribe", { ...ST_LOUIS, city: "x".repeat(121), referrer: "r".repeat(2001) });
    const body = await problem(res);
    expect(body.issues!.map((i) => i.path).sort()).toEqual(["city", "referrer"]);
  });

  it("answers invalid_json for a malformed body and 413 for an oversized one", async () => {
    const bad = await server.post("/api/subscribe", '{"email": ');
    expect(bad.status).toBe(400);
    expect((await problem(bad)).code).toBe("invalid_json");
    const big = await server.post("/api/subscribe", { ...ST_LOUIS, landing_path: "/".repeat(17 * 1024) });
    expect(big.status).toBe(413);
    expect((await problem(big)).code).toBe("payload_too_large");
  });

  it("a well-formed slug that matches no U.S. place is a validation_error on slug", async () => {
    const res = await server.post("/api/subscribe", { ...ST_LOUIS, city: "Atlantis", slug: "atlantis-missouri" });
    expect(res.status).toBe(400);
    const body = await problem(res);
    expect(body.code).toBe("validation_error");
    expect(body.issues).toEqual([{ path: "slug", message: expect.stringContaining("no U.S. place") }]);
  });

  it("city and state must agree with the slug", async () => {
    const res = await server.post("/api/subscribe", { ...ST_LOUIS, city: "Kansas City", state: "Kansas" });
    const body = await problem(res);
    expect(body.code).toBe("validation_error");
    expect(body.issues!.map((i) => i.path).sort()).toEqual(["city", "state"]);
    expect(subscriberRows(ST_LOUIS.email)).toHaveLength(0);
  });

  it("accepts the city case- and accent-insensitively and the state as a postal code", async () => {
    const res = await server.post("/api/subscribe", { email: "canon@example.org", city: "canon city", state: "CO", slug: "canon-city-colorado" });
    expect(res.status).toBe(200);
    expect(subscriberRows("canon@example.org")).toHaveLength(1);
  });
});

describe("POST /api/subscribe: storing and mailing", () => {
  it("stores the subscriber with attribution, makes the place a city, queues the welcome and owes the first digest", async () => {
    const res = await server.post("/api/subscribe", {
      ...ST_LOUIS, email: "Reader@Example.org", referrer: "https://news.example/story", utm_source: "newsletter", utm_medium: "email",
      utm_campaign: null, landing_path: "/st-louis-missouri",
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.json()).toEqual({ success: true, message: expect.any(String) });

    const [row] = subscriberRows(ST_LOUIS.email);
    expect(row).toMatchObject({
      email: "reader@example.org", slug: ST_LOUIS.slug, status: "active", referrer: "https://news.example/story",
      utm_source: "newsletter", utm_medium: "email", utm_campaign: null, landing_path: "/st-louis-missouri", first_digest_pending: 1,
    });
    // No edition today yet: only the welcome is queued, the digest waits for the morning run.
    expect(outboxOf(ST_LOUIS.email)).toEqual([{ kind: "welcome", edition_id: null, status: "pending" }]);

    const cities = (await (await server.get("/api/cities")).json()) as { states: Array<{ state: string; cities: Array<{ slug: string }> }> };
    expect(cities.states.flatMap((s) => s.cities.map((c) => c.slug))).toContain(ST_LOUIS.slug);
  });

  it("delivers the welcome email with both MIME parts, list headers and the footer", async () => {
    const before = sink.count;
    const r = await sendPendingMail(server.ctx);
    expect(r.sent).toBeGreaterThanOrEqual(1);
    await sink.waitForCount(before + 1);
    const [mail] = sink.to(ST_LOUIS.email);
    expect(mail.parsed.subject).toBe("Welcome to the St. Louis, Missouri daily");
    // BASE_URL is an IP address: the From address is on it, as an address literal.
    expect(mail.parsed.from!.value[0].address).toBe("news@[127.0.0.1]");
    expect(mail.parsed.text).toContain("St. Louis");
    expect(mail.parsed.html).toContain("<h1");
    expect(mail.header("List-Id")).toContain("<st-louis-missouri.localhost>");
    expect(mail.header("List-Unsubscribe")).toMatch(/^<http:\/\/127\.0\.0\.1:\d+\/unsubscribe\/[\w.-]+>, <mailto:unsubscribe@%5B127\.0\.0\.1%5D\?subject=unsubscribe%20[\w.-]+>$/);
    expect(mail.header("List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
    for (const part of [mail.parsed.text!, mail.parsed.html as string]) {
      expect(part).toContain("100 Main St, Springfield, IL 62701");
      expect(part).toContain("/subscriptions/");
    }
  });

  it("subscribing again to the same city is idempotent: one row, one welcome", async () => {
    const again = await server.post("/api/subscribe", ST_LOUIS);
    expect(again.status).toBe(200);
    expect(subscriberRows(ST_LOUIS.email)).toHaveLength(1);
    expect(outboxOf(ST_LOUIS.email).filter((o) => o.kind === "welcome")).toHaveLength(1);
    await sendPendingMail(server.ctx);
    expect(sink.to(ST_LOUIS.email)).toHaveLength(1);
  });

  it("one address may follow several cities; today's edition, when published, is queued at once", async () => {
    const nyc = geoidOf(db(), "new-york-new-york");
    const editionId = addEdition(db(), "new-york-new-york", "2026-11-22", "New York, Sunday November 22")!;
    const res = await server.post("/api/subscribe", { email: ST_LOUIS.email, city: "New York", state: "New York", slug: "new-york-new-york" });
    expect(res.status).toBe(200);
    expect(subscriberRows(ST_LOUIS.email).map((r) => r.slug)).toEqual([ST_LOUIS.slug, "new-york-new-york"]);
    const ny = db().prepare("SELECT id, first_digest_pending FROM subscribers WHERE email = ? AND place_geoid = ?").get(ST_LOUIS.email, nyc) as { id: number; first_digest_pending: number };
    expect(ny.first_digest_pending).toBe(0);
    expect(outboxOf(ST_LOUIS.email).filter((o) => o.status === "pending")).toEqual([
      { kind: "welcome", edition_id: null, status: "pending" },
      { kind: "digest", edition_id: editionId, status: "pending" },
    ]);
    const before = sink.count;
    await sendPendingMail(server.ctx);
    await sink.waitForCount(before + 2);
    const subjects = sink.to(ST_LOUIS.email).map((m) => m.parsed.subject);
    expect(subjects).toContain("New York, Sunday November 22");
    expect(subjects).toContain("Welcome to the New York, New York daily");
    const welcome = sink.to(ST_LOUIS.email).find((m) => m.parsed.subject === "Welcome to the New York, New York daily")!;
    expect(welcome.parsed.text).toContain("Today's edition is on its way");
  });
});

describe("POST /api/subscribe: silent rejections store and send nothing", () => {
  const answerFor = async (body: object) => {
    const res = await server.post("/api/subscribe", body);
    return { status: res.status, body: await res.json() };
  };

  it("answers exactly like a success for a filled honeypot, a disposable domain and a suppressed address (which is only asked to confirm)", async () => {
    const genuine = await answerFor({ ...ST_LOUIS, email: "genuine@example.org" });
    // Suppressed through the protected bounce endpoint.
    const hook = await server.post("/webhooks/mail", { type: "complaint", email: "angry@example.org" }, { headers: { Authorization: "Bearer admin-secret" } });
    expect(hook.status).toBe(200);
    const before = sink.count;
    const rejected = [
      { ...ST_LOUIS, email: "bot@example.org", honeypot: "http://spam.example" },
      { ...ST_LOUIS, email: "someone@mailinator.com" },
      { ...ST_LOUIS, email: "someone@sub.yopmail.com" },
      { ...ST_LOUIS, email: "Angry@Example.org" },
    ];
    for (const body of rejected) {
      expect(await answerFor(body)).toEqual(genuine);
      expect(subscriberRows(body.email.toLowerCase())).toHaveLength(0);
    }
    for (const body of rejected.slice(0, 3)) expect(outboxOf(body.email.toLowerCase())).toHaveLength(0);
    await sendPendingMail(server.ctx);
    const arrived = sink.messages.slice(0).map((m) => m.to[0]);
    for (const body of rejected.slice(0, 3)) expect(arrived).not.toContain(body.email.toLowerCase());
    // The suppressed address: no welcome, only the email asking its owner to confirm.
    expect(sink.to("angry@example.org").map((m) => m.parsed.subject)).toEqual(["Confirm: subscribe to the St. Louis, Missouri daily again?"]);
    expect(sink.count).toBe(before + 2); // genuine@example.org's welcome and that confirmation
  });
});

describe("POST /webhooks/mail (outside the public API)", () => {
  it("needs the admin bearer token: missing 401, wrong 403, as problem+json", async () => {
    const none = await server.post("/webhooks/mail", { type: "bounce", email: "x@example.org" });
    expect(none.status).toBe(401);
    expect((await problem(none)).code).toBe("unauthorized");
    const wrong = await server.post("/webhooks/mail", { type: "bounce", email: "x@example.org" }, { headers: { Authorization: "Bearer nope" } });
    expect(wrong.status).toBe(403);
    expect((await problem(wrong)).code).toBe("forbidden");
  });

  it("a hard bounce suppresses the address and relabels its subscriptions, keeping their history", async () => {
    await server.post("/api/subscribe", { ...ST_LOUIS, email: "gone@example.org" });
    const res = await server.post("/webhooks/mail", { events: [
      { type: "bounce", email: "gone@example.org", permanent: true, detail: "550 5.1.1 no such user" },
      { type: "bounce", email: "flaky@example.org", permanent: false },
      // The receiver refused the sender, not the address: never suppressed.
      { type: "bounce", email: "blocked@example.org", permanent: true, detail: "550 5.7.1 Client host blocked using Spamhaus" },
    ] }, { headers: { Authorization: "Bearer admin-secret" } });
    expect(await res.json()).toEqual({ processed: 3, suppressed: 1, unsubscribed: 0 });
    expect(db().prepare("SELECT kind FROM mail_events WHERE email = 'blocked@example.org'").pluck().all()).toEqual(["policy_refusal"]);
    expect(db().prepare("SELECT COUNT(*) FROM suppressions WHERE email = 'blocked@example.org'").pluck().get()).toBe(0);
    expect(subscriberRows("gone@example.org")).toMatchObject([{ status: "bounced" }]);
    expect(outboxOf("gone@example.org")).toEqual([{ kind: "welcome", edition_id: null, status: "cancelled" }]);
    const events = db().prepare("SELECT kind, source FROM mail_events WHERE email = ? ORDER BY id").all("gone@example.org");
    expect(events).toEqual([{ kind: "subscribed", source: "api" }, { kind: "bounced", source: "webhook" }]);
    expect(db().prepare("SELECT COUNT(*) FROM suppressions WHERE email = 'flaky@example.org'").pluck().get()).toBe(0);
  });

  it("a mail to the List-Unsubscribe mailto, reported by the inbound-mail service, unsubscribes that city", async () => {
    await server.post("/api/subscribe", { ...ST_LOUIS, email: "mailto@example.org" });
    const id = db().prepare("SELECT id FROM subscribers WHERE email = 'mailto@example.org'").pluck().get() as number;
    await sendPendingMail(server.ctx); // the sink keeps a message before it answers 250
    const mailto = /<mailto:([^>]+)>/.exec(sink.to("mailto@example.org")[0].header("List-Unsubscribe")!)![1];
    const subject = new URL(`mailto:${mailto}`).searchParams.get("subject")!;
    expect(subject).toMatch(/^unsubscribe \d+\.[\w-]{32}$/);
    const forged = await server.post("/webhooks/mail", { type: "unsubscribe", subject: `unsubscribe ${id}.${"A".repeat(32)}` }, { headers: { Authorization: "Bearer admin-secret" } });
    expect(await forged.json()).toMatchObject({ unsubscribed: 0 });
    const res = await server.post("/webhooks/mail", { type: "unsubscribe", subject }, { headers: { Authorization: "Bearer admin-secret" } });
    expect(await res.json()).toEqual({ processed: 1, suppressed: 0, unsubscribed: 1 });
    expect(subscriberRows("mailto@example.org")).toMatchObject([{ status: "unsubscribed" }]);
  });
});

describe("rate limits", () => {
  it("answers 429 rate_limited with Retry-After beyond the write limit; reads stay unlimited", async () => {
    const limited = await startTestServer({ MAIL_SENDER: "off", MORNING_SCHEDULE: "off", SUBSCRIBE_RATE_LIMIT: "3", SUBSCRIBE_RATE_WINDOW_SECONDS: "600" });
    try {
      for (let i = 0; i < 3; i++) expect((await limited.post("/api/subscribe", { ...ST_LOUIS, email: `r${i}@example.org` })).status).toBe(200);
      // Malformed requests count too (the limit is taken before the body is read).
      const res = await limited.post("/api/v1/subscribe", "{");
      expect(res.status).toBe(429);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(res.headers.get("retry-after")).toBe("200");
      const body = await problem(res);
      expect(body).toMatchObject({ code: "rate_limited", status: 429 });
      for (let i = 0; i < 20; i++) expect((await limited.get("/api/cities")).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });
});
