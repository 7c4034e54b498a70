import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../src/config/paths.ts";
import { queueEditionDigests } from "../../src/services/mail/digests.ts";
import { addEdition, addSubscriber, geoidOf } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";

/**
 * The sender never hangs: with connections refused, dropped, or never greeted, every wait has a
 * bound; the server's sender recovers by itself once the relay is back; `mail:send` and the server
 * exit on SIGTERM with what they could not send left pending.
 */
const CITY = "boise-idaho";
let sink: SmtpSink;
let server: TestServer;
const db = () => server.ctx.db;
const counts = () => Object.fromEntries((db().prepare("SELECT status, COUNT(*) AS n FROM outbox GROUP BY status").all() as Array<{ status: string; n: number }>).map((r) => [r.status, r.n]));

beforeAll(async () => {
  sink = await new SmtpSink({ parse: false }).start();
  // The server's database and the rows the children send; its own sender stays off.
  server = await startTestServer({ SMTP_URL: sink.url, MAIL_SENDER: "off", MAIL_FROM: "citydaily <news@citydaily.example>" });
  for (let i = 0; i < 40; i++) addSubscriber(db(), CITY, `hang${i}@example.org`);
});
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
});

function queue(date: string): number {
  const id = addEdition(db(), CITY, date, `Boise ${date}`)!;
  queueEditionDigests(server.ctx, { id, placeGeoid: geoidOf(db(), CITY), date });
  db().prepare("UPDATE outbox SET next_attempt_at = 0 WHERE edition_id = ?").run(id);
  return id;
}

function runSender(env: Record<string, string>) {
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, "scripts/send-mail.ts")], {
    env: { ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: "silent", NOW: "", MAIL_FROM: "citydaily <news@citydaily.example>", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c));
  const exited = new Promise<{ code: number | null; out: string }>((resolve) => child.once("exit", (code) => resolve({ code, out })));
  return { child, exited };
}

describe("npm run mail:send", () => {
  it.each([
    ["never greets", { stage: "silent" } as const],
    ["drops every connection", { stage: "drop" } as const],
  ])("against a server that %s: exits by itself with every row pending, suppressing nobody", async (_name, fault) => {
    const id = queue(fault.stage === "silent" ? "2026-12-01" : "2026-12-02");
    await sink.misbehave(fault);
    try {
      const started = Date.now();
      // A 2 s greeting timeout (the default is 15 s): the run ends within its bounds, never hangs.
      const { exited } = runSender({ SMTP_URL: `${sink.url}?greetingTimeout=2000` });
      const { code, out } = await exited;
      expect(code).toBe(75);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(out).toMatch(/40 deferred/);
      expect(db().prepare("SELECT status, COUNT(*) AS n FROM outbox WHERE edition_id = ? GROUP BY status").all(id)).toEqual([{ status: "pending", n: 40 }]);
      expect(db().prepare("SELECT COUNT(*) FROM suppressions").pluck().get()).toBe(0);
    } finally {
      await sink.misbehave(undefined);
    }
  }, 40_000);

  it("SIGTERM while connections hang: exits promptly, nothing left claimed", async () => {
    const id = queue("2026-12-03");
    await sink.misbehave({ stage: "silent" });
    try {
      const sessions = sink.sessions;
      const { child, exited } = runSender({ SMTP_URL: sink.url, SHUTDOWN_TIMEOUT_MS: "1000" });
      while (sink.sessions === sessions) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 300));
      const signalled = Date.now();
      child.kill("SIGTERM");
      const { code } = await exited;
      expect(code).toBe(143);
      expect(Date.now() - signalled).toBeLessThan(4000);
      expect(db().prepare("SELECT status, COUNT(*) AS n FROM outbox WHERE edition_id = ? GROUP BY status").all(id)).toEqual([{ status: "pending", n: 40 }]);
      // Not even counted as attempts: the sender stopped, nobody refused anything.
      expect(db().prepare("SELECT MAX(attempts) FROM outbox WHERE edition_id = ?").pluck().get(id)).toBe(0);
    } finally {
      await sink.misbehave(undefined);
    }
  }, 20_000);

  it("the next run with the relay back delivers everything left, once", async () => {
    db().prepare("UPDATE outbox SET next_attempt_at = 0").run(); // past the pauses of the runs above
    const { code } = await runSender({ SMTP_URL: sink.url }).exited;
    expect(code).toBe(0);
    expect(counts()).toEqual({ sent: 120 });
    expect(sink.count).toBe(120);
  }, 30_000);
});

describe("the server's background sender", () => {
  it("recovers by itself when the relay comes back, and the server's SIGTERM still exits with a hung relay", async () => {
    const own = await new SmtpSink({ parse: false }).start();
    const live = await startTestServer({
      SMTP_URL: `${own.url}?greetingTimeout=60000&socketTimeout=60000`, MAIL_SEND_INTERVAL_MS: "100", MAIL_RETRY_BASE_SECONDS: "1",
      MAIL_FROM: "citydaily <news@citydaily.example>", SHUTDOWN_TIMEOUT_MS: "1000",
    });
    try {
      await own.misbehave({ stage: "drop" });
      for (let i = 0; i < 30; i++) addSubscriber(live.ctx.db, CITY, `live${i}@example.org`);
      const id = addEdition(live.ctx.db, CITY, "2026-12-04", "Boise live")!;
      queueEditionDigests(live.ctx, { id, placeGeoid: geoidOf(live.ctx.db, CITY), date: "2026-12-04" });
      live.ctx.mail.kick();
      // An outage of a second and a half...
      await new Promise((r) => setTimeout(r, 1500));
      expect(own.count).toBe(0);
      expect(live.ctx.mail.delivery.faults).toBeGreaterThan(0);
      await own.misbehave(undefined);
      // ...and every digest goes out within the (capped, doubling) pause, without anyone's help.
      await own.waitForCount(30, 15_000);
      // (each acceptance is committed on the sender's next turn)
      for (let i = 0; i < 50 && live.ctx.db.prepare("SELECT COUNT(*) FROM outbox WHERE status <> 'sent'").pluck().get() !== 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(live.ctx.db.prepare("SELECT status, COUNT(*) AS n FROM outbox GROUP BY status").all()).toEqual([{ status: "sent", n: 30 }]);
      expect(own.count).toBe(30);

      // Now a relay that accepts connections and never greets, with a 60 s greeting timeout: SIGTERM
      // (close) still ends within its bound, the new welcome left pending.
      await own.misbehave({ stage: "silent" });
      expect((await live.post("/api/subscribe", { email: "late@example.org", city: "Boise", state: "Idaho", slug: CITY })).status).toBe(200);
      while (own.sessions === 0 || !live.ctx.db.prepare("SELECT 1 FROM outbox WHERE status = 'sending'").get()) await new Promise((r) => setTimeout(r, 20));
      const started = Date.now();
      const dataDir = live.dataDir;
      await live.close();
      expect(Date.now() - started).toBeLessThan(4000);
      const Database = (await import("better-sqlite3")).default;
      const after = new Database(`${dataDir}/citydaily.db`, { readonly: true });
      try {
        expect(after.prepare("SELECT status FROM outbox WHERE kind = 'welcome'").pluck().all()).toEqual(["pending"]);
      } finally {
        after.close();
      }
    } finally {
      await live.stop();
      await own.stop();
    }
  }, 40_000);
});

describe("kill -9 of mail:send", () => {
  it("re-sends at most the messages that were in flight at each kill, with the same Message-ID; nothing is lost", async () => {
    const slow = await new SmtpSink({ delayMs: 20 }).start();
    const KILLS = 3;
    const IN_FLIGHT = 4; // MAIL_CONCURRENCY=2: twice as many messages in flight as connections
    try {
      const id = queue("2026-12-10");
      const env = { SMTP_URL: slow.url, MAIL_CONCURRENCY: "2", MAIL_BATCH_SIZE: "10", MAIL_LEASE_SECONDS: "1" };
      for (let k = 0; k < KILLS; k++) {
        const { child, exited } = runSender(env);
        const start = slow.count;
        // Somewhere mid-delivery: after 3 to 8 more messages have been accepted.
        const after = 3 + Math.floor(Math.random() * 6);
        while (slow.count < start + after && child.exitCode === null) await new Promise((r) => setTimeout(r, 2));
        child.kill("SIGKILL");
        await exited;
      }
      const { code } = await runSender(env).exited;
      expect(code).toBe(0);
      expect(db().prepare("SELECT status, COUNT(*) AS n FROM outbox WHERE edition_id = ? GROUP BY status").all(id)).toEqual([{ status: "sent", n: 40 }]);
      const ids = slow.messages.map((m) => m.header("Message-ID")!);
      const distinct = new Set(ids);
      expect(distinct.size).toBe(40); // every reader got it
      const duplicates = ids.length - distinct.size;
      expect(duplicates).toBeLessThanOrEqual(KILLS * IN_FLIGHT);
      console.log(`mail:send killed ${KILLS} times: 40 digests delivered, ${duplicates} duplicates (same Message-ID; bound ${IN_FLIGHT} a kill)`);
    } finally {
      await slow.stop();
    }
  }, 60_000);
});
