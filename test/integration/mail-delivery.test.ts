import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../src/config/paths.ts";
import { queueEditionDigests } from "../../src/services/mail/digests.ts";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { startOpenMeteoServer, type OpenMeteoServer } from "../helpers/open-meteo-server.ts";
import { addEdition, addSubscriber, geoidOf } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";

// 12:00 UTC on Nov 22: 07:00 in New York, past the 6 o'clock publication.
const NOW = "2026-11-22T12:00:00.000Z";
const NY = { city: "New York", state: "New York", slug: "new-york-new-york" };
const BOSTON = { city: "Boston", state: "Massachusetts", slug: "boston-massachusetts" };
const { privateKey } = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
const DKIM_KEY = privateKey.export({ type: "pkcs8", format: "pem" }).toString();

let sink: SmtpSink;
let meteo: OpenMeteoServer;
let server: TestServer;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  meteo = await startOpenMeteoServer({ today: "2026-11-22" });
  server = await startTestServer({
    SMTP_URL: sink.url, MAIL_SENDER: "off", MORNING_SCHEDULE: "off", NOW, OPEN_METEO_URL: meteo.url, WEATHER_TIMEOUT_MS: "2000",
    SUBSCRIBE_RATE_LIMIT: "1000", MAIL_FROM: "citydaily <news@citydaily.example>", POSTAL_ADDRESS: "citydaily, 100 Main St, Springfield, IL 62701",
    DKIM_DOMAIN: "citydaily.example", DKIM_SELECTOR: "mail2026", DKIM_PRIVATE_KEY: DKIM_KEY,
  });
});
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
  await meteo?.close();
});

const db = () => server.ctx.db;
const subscribe = (email: string, city = NY) => server.post("/api/subscribe", { email, ...city });
const statusOf = (email: string, slug = NY.slug) =>
  db().prepare("SELECT status FROM subscribers WHERE email = ? AND place_geoid = ?").pluck().get(email, geoidOf(db(), slug));
const unsubscribeUrl = (header: string) => /<(http[^>]+)>/.exec(header)![1];

describe("the daily digest after a morning run", () => {
  it("reaches every active subscriber once, with list headers, DKIM, both parts and the footer", async () => {
    for (const email of ["ann@example.org", "bob@example.org"]) expect((await subscribe(email)).status).toBe(200);
    await sendPendingMail(server.ctx); // the two welcomes
    await sink.waitForCount(2);
    const pending = db().prepare("SELECT COUNT(*) FROM subscribers WHERE first_digest_pending = 1").pluck().get();
    expect(pending).toBe(2);

    const morning = await runMorning(server.ctx);
    expect(morning.digestsQueued).toBe(2);
    expect(db().prepare("SELECT COUNT(*) FROM subscribers WHERE first_digest_pending = 1").pluck().get()).toBe(0);
    // A second run (or a second call) queues nothing more.
    expect((await runMorning(server.ctx)).digestsQueued).toBe(0);
    const edition = db().prepare("SELECT id, subject FROM editions WHERE place_geoid = ?").get(geoidOf(db(), NY.slug)) as { id: number; subject: string };
    expect(queueEditionDigests(server.ctx, { id: edition.id, placeGeoid: geoidOf(db(), NY.slug), date: "2026-11-22" })).toBe(0);

    const r = await sendPendingMail(server.ctx);
    expect(r).toMatchObject({ sent: 2, failed: 0 });
    await sink.waitForCount(4);
    for (const email of ["ann@example.org", "bob@example.org"]) {
      const mails = sink.to(email);
      expect(mails.map((m) => m.parsed.subject)).toEqual(["Welcome to the New York, New York daily", edition.subject]);
      const digest = mails[1];
      expect(digest.parsed.from!.value[0].address).toBe("news@citydaily.example");
      expect(digest.header("List-Id")).toBe('"New York, New York daily" <new-york-new-york.citydaily.example>');
      expect(digest.header("List-Unsubscribe")).toMatch(/^<http:\/\/127\.0\.0\.1:\d+\/unsubscribe\/[\w.-]+>, <mailto:unsubscribe@citydaily\.example\?subject=unsubscribe%20[\w.-]+>$/);
      expect(digest.header("List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
      expect(digest.header("DKIM-Signature")).toMatch(/d=citydaily\.example;.*s=mail2026;/);
      expect(digest.header("Message-ID")).toMatch(/^<digest-\d+@citydaily\.example>$/);
      expect(digest.parsed.text).toContain("Read on the web: ");
      expect(digest.parsed.html).toContain("Read on the web");
      for (const part of [digest.parsed.text!, digest.parsed.html as string]) {
        expect(part).toContain("100 Main St, Springfield, IL 62701");
        expect(part).toContain(`${email} subscribed to the New York, New York daily`);
      }
    }
  });
});

describe("unsubscribing", () => {
  it("a GET on the link only shows a confirmation page; the RFC 8058 one-click POST unsubscribes at once; then no more mail", async () => {
    const [, digest] = sink.to("ann@example.org");
    const url = unsubscribeUrl(digest.header("List-Unsubscribe")!);

    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await page.text()).toContain("Unsubscribe from New York");
    expect(statusOf("ann@example.org")).toBe("active");

    const res = await fetch(url, { method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" });
    expect(res.status).toBe(200);
    expect(statusOf("ann@example.org")).toBe("unsubscribed");
    // Doing it twice is harmless.
    expect((await fetch(url, { method: "POST", body: "List-Unsubscribe=One-Click" })).status).toBe(200);

    // Tomorrow's edition goes to bob only.
    const before = sink.count;
    const id = addEdition(db(), NY.slug, "2026-11-23", "New York, Monday November 23")!;
    expect(queueEditionDigests(server.ctx, { id, placeGeoid: geoidOf(db(), NY.slug), date: "2026-11-23" })).toBe(1);
    await sendPendingMail(server.ctx);
    await sink.waitForCount(before + 1);
    expect(sink.to("ann@example.org")).toHaveLength(2);
    expect(sink.to("bob@example.org").map((m) => m.parsed.subject)).toContain("New York, Monday November 23");
    const history = db().prepare("SELECT kind, source FROM mail_events WHERE email = 'ann@example.org' ORDER BY id").all();
    expect(history).toEqual([{ kind: "subscribed", source: "api" }, { kind: "unsubscribed", source: "one-click" }]);
  });

  it("tokens cannot be forged or moved to another subscriber", async () => {
    const [, digest] = sink.to("bob@example.org");
    const url = unsubscribeUrl(digest.header("List-Unsubscribe")!);
    const token = url.split("/").pop()!;
    const [id, mac] = token.split(".");
    const annId = db().prepare("SELECT id FROM subscribers WHERE email = 'ann@example.org'").pluck().get() as number;
    for (const forged of [`${annId}.${mac}`, `${id}.${mac.slice(0, -1)}${mac.endsWith("A") ? "B" : "A"}`, `${id}`, "garbage"]) {
      const res = await fetch(`${server.url}/unsubscribe/${forged}`, { method: "POST", body: "List-Unsubscribe=One-Click" });
      expect(res.status).toBe(404);
    }
    expect(statusOf("bob@example.org")).toBe("active");
  });

  it("the manage page linked in every email leaves one city or all of them", async () => {
    expect((await subscribe("bob@example.org", BOSTON)).status).toBe(200);
    const [, digest] = sink.to("bob@example.org");
    const manage = /Manage your cities: (\S+)/.exec(digest.parsed.text!)![1];
    const page = await (await fetch(manage)).text();
    expect(page).toContain("Boston, Massachusetts");
    expect(page).toContain("New York, New York");

    const bostonId = db().prepare("SELECT id FROM subscribers WHERE email = 'bob@example.org' AND place_geoid = ?").pluck().get(geoidOf(db(), BOSTON.slug));
    const res = await fetch(manage, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: `subscription=${bostonId}` });
    expect(res.status).toBe(200);
    expect(statusOf("bob@example.org", BOSTON.slug)).toBe("unsubscribed");
    expect(statusOf("bob@example.org")).toBe("active");
    // The Boston welcome was still queued: it is cancelled, not sent.
    expect(db().prepare("SELECT status FROM outbox WHERE subscriber_id = ?").pluck().get(bostonId)).toBe("cancelled");

    await fetch(manage, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "all=1" });
    expect(statusOf("bob@example.org")).toBe("unsubscribed");
    expect(db().prepare("SELECT reason, source FROM suppressions WHERE email = 'bob@example.org'").get()).toEqual({ reason: "unsubscribed", source: "manage page" });
    // Subscribing again after this is the reader's own choice and works (test/integration/resubscribe.test.ts);
    // it is not done here, so the outbox the SMTP tests below count holds no new welcome.
  });
});

describe("SMTP failures", () => {
  it("server down, then back: the message waits with backoff and is delivered later, not lost", async () => {
    await sink.stop();
    // Boston has no edition today: only the welcome is queued.
    expect((await subscribe("carol@example.org", BOSTON)).status).toBe(200);
    const down = await sendPendingMail(server.ctx);
    // A delivery fault (the relay, not the reader): the row is put back, its attempt not counted, and
    // sending pauses for the retry base (at most 10 s), doubling while the relay stays down.
    expect(down).toMatchObject({ claimed: 1, deferred: 1, sent: 0 });
    const row = () => db().prepare("SELECT o.status, o.attempts, o.next_attempt_at, o.last_error FROM outbox o JOIN subscribers s ON s.id = o.subscriber_id WHERE s.email = 'carol@example.org'").get() as { status: string; attempts: number; next_attempt_at: number; last_error: string };
    expect(row()).toMatchObject({ status: "pending", attempts: 0, next_attempt_at: Date.parse(NOW) + 10_000 });

    await sink.start(); // same port
    // Not due before its backoff ends...
    expect((await sendPendingMail(server.ctx)).claimed).toBe(0);
    // ...then delivered.
    const later = await sendPendingMail(server.ctx, { now: () => Date.parse(NOW) + 61_000 });
    expect(later.sent).toBe(1);
    expect(sink.to("carol@example.org").map((m) => m.parsed.subject)).toEqual(["Welcome to the Boston, Massachusetts daily"]);
    expect(row().status).toBe("sent");
  });

  it("a 4xx refusal is retried with a doubled backoff; a 5xx refusal marks the address bounced and suppresses it", async () => {
    expect((await subscribe("dave@example.org", BOSTON)).status).toBe(200);
    sink.refuseAll = { code: 451, message: "try again later" };
    const t0 = Date.parse(NOW) + 120_000;
    expect(await sendPendingMail(server.ctx, { now: () => t0 })).toMatchObject({ retried: 1 });
    expect(await sendPendingMail(server.ctx, { now: () => t0 + 60_000 })).toMatchObject({ retried: 1 });
    const nextAt = db().prepare("SELECT next_attempt_at FROM outbox o JOIN subscribers s ON s.id = o.subscriber_id WHERE s.email = 'dave@example.org'").pluck().get();
    expect(nextAt).toBe(t0 + 60_000 + 120_000);
    sink.refuseAll = undefined;
    sink.refuseRecipient.set("dave@example.org", { code: 550, message: "5.1.1 no such mailbox" });
    expect(await sendPendingMail(server.ctx, { now: () => t0 + 180_000 })).toMatchObject({ failed: 1, sent: 0 });
    expect(statusOf("dave@example.org", BOSTON.slug)).toBe("bounced");
    expect(db().prepare("SELECT reason, source FROM suppressions WHERE email = 'dave@example.org'").get()).toEqual({ reason: "bounced", source: "smtp" });
    expect(sink.to("dave@example.org")).toHaveLength(0);
  });
});

describe("exactly once, even when a sender is killed mid-batch and two senders run at once", () => {
  it("every subscriber gets the digest exactly once", async () => {
    const slow = await new SmtpSink({ delayMs: 150 }).start();
    const emails = Array.from({ length: 12 }, (_, i) => `crash${i}@example.org`);
    for (const e of emails) addSubscriber(db(), "chicago-illinois", e);
    const id = addEdition(db(), "chicago-illinois", "2026-11-22", "Chicago, Sunday November 22")!;
    expect(queueEditionDigests(server.ctx, { id, placeGeoid: geoidOf(db(), "chicago-illinois"), date: "2026-11-22" })).toBe(12);

    // The children run on the real clock (leases must expire); make the rows due by it too.
    db().prepare("UPDATE outbox SET next_attempt_at = 0 WHERE edition_id = ?").run(id);
    const env = {
      ...process.env, DATA_DIR: server.dataDir, SMTP_URL: slow.url, LOG_LEVEL: "silent", NOW: "",
      MAIL_LEASE_SECONDS: "1", MAIL_BATCH_SIZE: "2", MAIL_CONCURRENCY: "1", MAIL_FROM: "citydaily <news@citydaily.example>",
    };
    const sender = () => spawn(process.execPath, [path.join(PROJECT_ROOT, "scripts/send-mail.ts")], { env, stdio: "ignore" });
    const exited = (p: ChildProcess) => new Promise<number | null>((resolve) => p.once("exit", (code) => resolve(code)));
    const a = sender();
    const b = sender();
    // A dies with one of its own messages in flight: the sink has the data and is still taking its
    // 150 ms to answer. (Killing it in the microseconds between the server's 250 and its own commit
    // would re-send that one message, with the same Message-ID: the one window no SMTP client can close.)
    const aKilled = new Promise<void>((resolve) => {
      slow.onArrival = (raw) => {
        const row = Number(/^Message-ID: <digest-(\d+)@/im.exec(raw)?.[1]);
        const owner = db().prepare("SELECT lease_owner FROM outbox WHERE id = ?").pluck().get(row) as string | null;
        if (slow.count >= 2 && owner?.includes(`:${a.pid}:`)) {
          slow.onArrival = undefined;
          a.kill("SIGKILL");
          resolve();
        }
      };
    });
    await aKilled;
    expect(await exited(a)).toBe(null);
    const restarted = sender();
    expect(await Promise.all([exited(b), exited(restarted)])).toEqual([0, 0]);
    await slow.stop();

    for (const e of emails) {
      expect(slow.to(e).map((m) => m.parsed.subject), e).toEqual(["Chicago, Sunday November 22"]);
    }
    expect(slow.count).toBe(12);
    const statuses = db().prepare("SELECT status, COUNT(*) AS n FROM outbox WHERE edition_id = ? GROUP BY status").all(id);
    expect(statuses).toEqual([{ status: "sent", n: 12 }]);
    // Some of A's claimed rows were taken over once its lease ran out.
    expect(db().prepare("SELECT COUNT(*) FROM outbox WHERE edition_id = ? AND attempts > 1").pluck().get(id)).toBeGreaterThan(0);
  });
});

describe("TLS", () => {
  it("upgrades with STARTTLS when the server offers it", async () => {
    const tls = await new SmtpSink({ starttls: true }).start();
    // The test server's certificate is self-signed: this test alone skips verification.
    const live = await startTestServer({ SMTP_URL: `${tls.url}?tls.rejectUnauthorized=false`, MAIL_SENDER: "off" });
    try {
      expect((await live.post("/api/subscribe", { email: "tls@example.org", ...NY })).status).toBe(200);
      expect((await sendPendingMail(live.ctx)).sent).toBe(1);
      expect(tls.to("tls@example.org")[0].secure).toBe(true);
    } finally {
      await live.stop();
      await tls.stop();
    }
  });
});

describe("the server's background sender", () => {
  it("delivers the welcome email without anyone running the sender by hand", async () => {
    const own = await new SmtpSink().start();
    const live = await startTestServer({ SMTP_URL: own.url, MORNING_SCHEDULE: "off", MAIL_SEND_INTERVAL_MS: "200" });
    try {
      expect((await live.post("/api/subscribe", { email: "eve@example.org", ...NY })).status).toBe(200);
      await own.waitForCount(1);
      expect(own.to("eve@example.org")[0].parsed.subject).toBe("Welcome to the New York, New York daily");
    } finally {
      await live.stop();
      await own.stop();
    }
  });
});
