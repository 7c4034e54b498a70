import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queueEditionDigests } from "../../src/services/mail/digests.ts";
import { RELAY_ALIKE } from "../../src/services/mail/batch.ts";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { addEdition, addSubscriber, geoidOf } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink, type SmtpFault } from "../helpers/smtp-sink.ts";

/**
 * A relay's bad day must never be held against the readers: a real SMTP server (smtp-server) made to
 * fail every session at each stage. Only a refusal about one recipient (at RCPT TO, a bad mailbox)
 * suppresses that recipient; anything else pauses sending and keeps every row pending.
 */
const NOW = "2026-11-22T12:00:00.000Z";
const CITY = "boise-idaho";
const READERS = 20;

let sink: SmtpSink;
let server: TestServer;
let clock = Date.parse(NOW);
let day = 0;
const db = () => server.ctx.db;
const readers = Array.from({ length: READERS }, (_, i) => `reader${i}@example.org`);

beforeAll(async () => {
  sink = await new SmtpSink({ auth: true }).start();
  server = await startTestServer({
    // Credentials, so that AUTH is a stage; short timeouts, so that a silent server costs half a second.
    SMTP_URL: `smtp://user:secret@127.0.0.1:${sink.port}?connectionTimeout=500&greetingTimeout=500&socketTimeout=1500`,
    MAIL_SENDER: "off", NOW, MAIL_RETRY_BASE_SECONDS: "1", MAIL_FROM: "citydaily <news@citydaily.example>",
  });
  for (const r of readers) addSubscriber(db(), CITY, r);
});
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
});

/** A new edition queued for every reader: READERS digest rows. */
function queueDigest(): number {
  day++;
  const date = `2026-12-${String(day).padStart(2, "0")}`;
  const id = addEdition(db(), CITY, date, `Boise, edition ${day}`)!;
  expect(queueEditionDigests(server.ctx, { id, placeGeoid: geoidOf(db(), CITY), date })).toBe(READERS);
  db().prepare("UPDATE outbox SET next_attempt_at = ? WHERE edition_id = ?").run(clock, id);
  return id;
}

const rowsOf = (editionId: number) =>
  db().prepare("SELECT status, attempts FROM outbox WHERE edition_id = ? ORDER BY id").all(editionId) as Array<{ status: string; attempts: number }>;
const subscriberStatuses = () => db().prepare("SELECT status, COUNT(*) AS n FROM subscribers WHERE place_geoid = ? GROUP BY status").all(geoidOf(db(), CITY));
const suppressions = () => db().prepare("SELECT email FROM suppressions ORDER BY email").pluck().all();
const send = () => sendPendingMail(server.ctx, { now: () => clock });

const faults: Array<[string, SmtpFault]> = [
  ["a 554 greeting (a blocklisted sending IP)", { stage: "greeting", code: 554, message: "5.7.1 Service unavailable; client host blocked" }],
  ["a 421 greeting", { stage: "greeting", code: 421, message: "4.3.2 try again later" }],
  ["a 5xx at EHLO and HELO", { stage: "ehlo" }],
  ["a 535 at AUTH", { stage: "auth", code: 535, message: "5.7.8 authentication failed" }],
  ["a 454 at AUTH", { stage: "auth", code: 454, message: "4.7.0 temporary authentication failure" }],
  ["a server that never answers AUTH", { stage: "authSilent" }],
  ["554 relay access denied at MAIL FROM", { stage: "mail", code: 554, message: "5.7.1 relay access denied" }],
  ["451 at MAIL FROM", { stage: "mail", code: 451, message: "4.3.0 local error" }],
  ["554 relay access denied at every RCPT TO", { stage: "rcpt", code: 554, message: "5.7.1 Relay access denied" }],
  ["550 policy refusal at every RCPT TO", { stage: "rcpt", code: 550, message: "5.7.1 rejected by policy" }],
  // RFC 5321 4.5.3.1.10: a 552 at RCPT is the temporary 452; RFC 3463: X.2.2 (mailbox full) is transient.
  ["552 5.2.2 mailbox full at every RCPT TO", { stage: "rcpt", code: 552, message: "5.2.2 Mailbox full" }],
  ["a bare 552 at every RCPT TO", { stage: "rcpt", code: 552, message: "Requested mail action aborted: exceeded storage allocation" }],
  ["452 4.3.1 insufficient system storage at every RCPT TO", { stage: "rcpt", code: 452, message: "4.3.1 Insufficient system storage" }],
  ["451 4.4.1 no answer from host at every RCPT TO", { stage: "rcpt", code: 451, message: "4.4.1 No answer from host" }],
  // A relay that says "user unknown" to everyone is the relay speaking (a wrong route), not every reader.
  ["550 5.1.1 user unknown at every RCPT TO", { stage: "rcpt", code: 550, message: "5.1.1 User unknown" }],
  ["a 5xx at DATA", { stage: "data" }],
  ["554 after DATA", { stage: "afterData", code: 554, message: "5.6.0 transaction failed" }],
  ["451 after DATA", { stage: "afterData", code: 451, message: "4.3.0 queue full" }],
  ["connections dropped at once", { stage: "drop" }],
  ["a server that never greets", { stage: "silent" }],
];

describe("a failure of the relay or the session suppresses nobody", () => {
  it.each(faults)("%s: nothing suppressed, every row pending, sending paused, then everything delivered once", async (_name, fault) => {
    const before = sink.count;
    const edition = queueDigest();
    await sink.misbehave(fault);
    const started = Date.now();
    const r = await send();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r).toMatchObject({ claimed: READERS, sent: 0, failed: 0, deferred: READERS });
    expect(sink.count).toBe(before);
    expect(suppressions()).toEqual([]);
    expect(subscriberStatuses()).toEqual([{ status: "active", n: READERS }]);
    const rows = rowsOf(edition);
    expect(rows.every((row) => row.status === "pending")).toBe(true);
    // A relay's fault uses up no reader's attempts (a refusal of the message's data counts for that one message).
    expect(rows.filter((row) => row.attempts > 0).length).toBeLessThanOrEqual(fault.stage === "data" || fault.stage === "afterData" ? 10 : 0);
    // Paused: nothing is claimed (not even a connection tried) until the pause ends.
    const sessions = sink.sessions;
    expect(await send()).toMatchObject({ claimed: 0 });
    expect(sink.sessions).toBe(sessions);

    // The relay is well again: after the pause, every reader gets this edition exactly once.
    await sink.misbehave(undefined);
    clock = server.ctx.mail.delivery.pausedUntil + 1;
    let sent = 0;
    for (let i = 0; i < 5 && sent < READERS; i++) sent += (await send()).sent;
    expect(sent).toBe(READERS);
    expect(rowsOf(edition).map((row) => row.status)).toEqual(Array(READERS).fill("sent"));
    for (const reader of readers) expect(sink.to(reader).filter((m) => m.parsed.subject === `Boise, edition ${day}`)).toHaveLength(1);
    expect(server.ctx.mail.delivery.faults).toBe(0);
    clock += 60_000;
  });

  it("the refusal of a connection (nothing listening) pauses too, and the pause doubles while it lasts", async () => {
    const edition = queueDigest();
    await sink.stop();
    try {
      expect(await send()).toMatchObject({ sent: 0, deferred: READERS });
      const first = server.ctx.mail.delivery.pausedUntil - clock;
      clock = server.ctx.mail.delivery.pausedUntil + 1;
      expect(await send()).toMatchObject({ sent: 0, deferred: READERS });
      expect(server.ctx.mail.delivery.pausedUntil - clock).toBe(2 * first);
      expect(suppressions()).toEqual([]);
      expect(rowsOf(edition).every((row) => row.status === "pending" && row.attempts === 0)).toBe(true);
    } finally {
      await sink.start();
    }
    clock = server.ctx.mail.delivery.pausedUntil + 1;
    expect((await send()).sent).toBe(READERS);
  });
});

describe("TLS and AUTH the relay cannot do", () => {
  // Another relay on the same port: one whose STARTTLS certificate is not trusted (self-signed, as an
  // expired or misissued one would be), or one that offers no AUTH while credentials are configured.
  it.each([
    ["a STARTTLS certificate that is not trusted", { starttls: true, auth: true }],
    ["no AUTH offered, credentials configured", { auth: false }],
  ] as const)("%s: a delivery fault, nobody suppressed, every row pending with 0 attempts; then all delivered once", async (_name, opts) => {
    clock += 3600_000;
    const edition = queueDigest();
    const port = sink.port;
    await sink.stop();
    const other = await new SmtpSink({ port, ...opts }).start();
    try {
      const r = await send();
      expect(r).toMatchObject({ claimed: READERS, sent: 0, failed: 0, deferred: READERS });
      expect(other.count).toBe(0);
    } finally {
      await other.stop();
      await sink.start();
    }
    expect(suppressions()).toEqual([]);
    expect(rowsOf(edition)).toEqual(Array(READERS).fill({ status: "pending", attempts: 0 }));
    clock = server.ctx.mail.delivery.pausedUntil + 1;
    let sent = 0;
    for (let i = 0; i < 5 && sent < READERS; i++) sent += (await send()).sent;
    expect(sent).toBe(READERS);
    for (const reader of readers) expect(sink.to(reader).filter((m) => m.parsed.subject === `Boise, edition ${day}`)).toHaveLength(1);
  });
});

describe("a relay refusing every recipient for longer than the attempts allow", () => {
  it.each([
    ["452 4.3.1", { stage: "rcpt", code: 452, message: "4.3.1 Insufficient system storage" }],
    ["552 5.2.2", { stage: "rcpt", code: 552, message: "5.2.2 Mailbox full" }],
    ["a bare 552", { stage: "rcpt", code: 552, message: "Requested mail action aborted: exceeded storage allocation" }],
  ] as Array<[string, SmtpFault]>)("%s at every RCPT TO through 12 rounds (MAIL_MAX_ATTEMPTS is 8): no attempt counted, nobody suppressed; then all delivered once", async (_name, fault) => {
    clock += 3600_000;
    const edition = queueDigest();
    await sink.misbehave(fault);
    const before = sink.count;
    try {
      for (let round = 0; round < 12; round++) {
        const r = await send();
        expect(r).toMatchObject({ sent: 0, failed: 0, retried: 0, deferred: READERS });
        clock = server.ctx.mail.delivery.pausedUntil + 1;
      }
    } finally {
      await sink.misbehave(undefined);
    }
    expect(sink.count).toBe(before);
    expect(suppressions()).toEqual([]);
    expect(rowsOf(edition)).toEqual(Array(READERS).fill({ status: "pending", attempts: 0 }));
    let sent = 0;
    for (let i = 0; i < 5 && sent < READERS; i++) sent += (await send()).sent;
    expect(sent).toBe(READERS);
    for (const reader of readers) expect(sink.to(reader).filter((m) => m.parsed.subject === `Boise, edition ${day}`)).toHaveLength(1);
    expect(server.ctx.mail.delivery.faults).toBe(0);
  });

  it("301 readers of another town, 552 5.2.2 at every RCPT TO: 0 of 301 suppressed, a handful of RCPTs a round; then 301 delivered once", async () => {
    clock += 3600_000;
    const town = "tucson-arizona";
    const many = Array.from({ length: 301 }, (_, i) => `tucson${i}@example.org`);
    for (const r of many) addSubscriber(db(), town, r);
    const id = addEdition(db(), town, "2026-12-20", "Tucson, a full relay")!;
    expect(queueEditionDigests(server.ctx, { id, placeGeoid: geoidOf(db(), town), date: "2026-12-20" })).toBe(301);
    db().prepare("UPDATE outbox SET next_attempt_at = ? WHERE edition_id = ?").run(clock, id);
    await sink.misbehave({ stage: "rcpt", code: 552, message: "5.2.2 Mailbox full" });
    const before = sink.count;
    try {
      for (let round = 0; round < 10; round++) {
        const rcpts = sink.rcpts;
        const r = await send();
        expect(r).toMatchObject({ sent: 0, failed: 0, retried: 0 });
        expect(r.deferred).toBe(r.claimed);
        // Judged the relay's after RELAY_ALIKE refusals (plus those already in flight), not after 200.
        expect(sink.rcpts - rcpts).toBeLessThanOrEqual(RELAY_ALIKE + 2 * 5);
        clock = server.ctx.mail.delivery.pausedUntil + 1;
      }
    } finally {
      await sink.misbehave(undefined);
    }
    expect(suppressions()).toEqual([]);
    expect(db().prepare("SELECT status, MAX(attempts) AS attempts, COUNT(*) AS n FROM outbox WHERE edition_id = ? GROUP BY status").all(id)).toEqual([{ status: "pending", attempts: 0, n: 301 }]);
    let sent = 0;
    for (let i = 0; i < 5 && sent < 301; i++) sent += (await send()).sent;
    expect(sent).toBe(301);
    expect(sink.count - before).toBe(301);
    for (const r of many) expect(sink.to(r)).toHaveLength(1);
    expect(db().prepare("SELECT status FROM subscribers WHERE place_geoid = ? GROUP BY status").pluck().all(geoidOf(db(), town))).toEqual(["active"]);
  });

  it("552 5.2.2 for most of a batch (16 of 20) is the relay too: paused, nobody suppressed, the 16 delivered once it recovers", async () => {
    clock += 3600_000;
    const edition = queueDigest();
    for (const r of readers.slice(4)) sink.refuseRecipient.set(r, { code: 552, message: "5.2.2 Mailbox full" });
    try {
      const r = await send();
      expect(r).toMatchObject({ sent: 4, failed: 0, retried: 0, deferred: READERS - 4 });
      expect(server.ctx.mail.delivery.faults).toBe(1);
    } finally {
      sink.refuseRecipient.clear();
    }
    expect(suppressions()).toEqual([]);
    expect(rowsOf(edition).filter((row) => row.status === "pending")).toEqual(Array(READERS - 4).fill({ status: "pending", attempts: 0 }));
    clock = server.ctx.mail.delivery.pausedUntil + 1;
    expect((await send()).sent).toBe(READERS - 4);
    for (const reader of readers) expect(sink.to(reader).filter((m) => m.parsed.subject === `Boise, edition ${day}`)).toHaveLength(1);
  });
});

describe("a refusal about one recipient", () => {
  it("suppresses that recipient alone; a 4xx for one recipient retries that one; the others are delivered", async () => {
    clock += 3600_000;
    const edition = queueDigest();
    sink.refuseRecipient.set("reader3@example.org", { code: 550, message: "5.1.1 no such mailbox" });
    sink.refuseRecipient.set("reader4@example.org", { code: 452, message: "4.2.2 mailbox full" });
    sink.refuseRecipient.set("reader5@example.org", { code: 552, message: "5.2.2 Mailbox full" });
    sink.refuseRecipient.set("reader6@example.org", { code: 552, message: "Requested mail action aborted: exceeded storage allocation" });
    try {
      const r = await send();
      // A full mailbox is retried (RFC 5321: 552 at RCPT is the temporary 452), never a suppression.
      expect(r).toMatchObject({ sent: READERS - 4, failed: 1, retried: 3, deferred: 0 });
    } finally {
      sink.refuseRecipient.clear();
    }
    expect(suppressions()).toEqual(["reader3@example.org"]);
    expect(subscriberStatuses()).toEqual([{ status: "active", n: READERS - 1 }, { status: "bounced", n: 1 }]);
    expect(rowsOf(edition).filter((row) => row.status === "pending")).toEqual(Array(3).fill({ status: "pending", attempts: 1 }));
  });
});

describe("a reader wrongly marked bounced", () => {
  it("who subscribes again confirms from the one email the address gets, then gets the welcome email", async () => {
    const email = "reader3@example.org";
    const r = await server.post("/api/subscribe", { email, city: "Boise", state: "Idaho", slug: CITY });
    expect(r.status).toBe(200);
    // Anyone could have asked: nothing changes until the address confirms (docs/security.md).
    expect(suppressions()).toEqual([email]);
    let before = sink.count;
    clock += 3600_000;
    await send();
    await sink.waitForCount(before + 1);
    const confirm = sink.to(email).find((m) => m.parsed.subject === "Confirm: subscribe to the Boise, Idaho daily again?");
    const link = /(http:\/\/\S+\/resubscribe\/[\w-]+)/.exec(confirm?.parsed.text ?? "")![1];
    expect((await fetch(link, { method: "POST" })).status).toBe(200);
    expect(suppressions()).toEqual([]);
    expect(db().prepare("SELECT status FROM subscribers WHERE email = ?").pluck().get(email)).toBe("active");
    before = sink.count;
    clock += 3600_000;
    await send();
    await sink.waitForCount(before + 1);
    expect(sink.to(email).map((m) => m.parsed.subject)).toContain("Welcome to the Boise, Idaho daily");
    // A complaint is the reader's own wish: still silently refused.
    db().prepare("INSERT INTO suppressions (email, reason, source, created_at) VALUES ('angry@example.org', 'complained', 'webhook', ?)").run(NOW);
    await server.post("/api/subscribe", { email: "angry@example.org", city: "Boise", state: "Idaho", slug: CITY });
    expect(db().prepare("SELECT COUNT(*) FROM subscribers WHERE email = 'angry@example.org'").pluck().get()).toBe(0);
  });
});
