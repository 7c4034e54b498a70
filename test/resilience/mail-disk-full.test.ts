import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../src/config/paths.ts";
import { queueEditionDigests } from "../../src/services/mail/digests.ts";
import { addEdition, addSubscriber, geoidOf } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";

/**
 * The disk under the database fills while `npm run mail:send` delivers: a real tmpfs holds DATA_DIR,
 * and the test fills it when the relay has accepted the 30th message. The sender cannot record
 * deliveries any more: it must hand nothing more to the relay, say so, and exit with its own code;
 * once there is room, the next run sends what is left, each reader's digest once, apart from the
 * few accepted but not recorded (sent again with the same Message-ID).
 */
const CITY = "boise-idaho";
const READERS = 120;
const FILL_AT = 30;
const CONCURRENCY = 3;

function mountable(): boolean {
  const dir = fs.mkdtempSync("/tmp/citydaily-mount-probe-");
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir], { stdio: "ignore" });
    execFileSync("umount", [dir], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const canMount = mountable();
let mountDir: string;
let dataDir: string;
let sink: SmtpSink;
let server: TestServer;
let filler: string;

beforeAll(async () => {
  if (!canMount) return;
  mountDir = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-mailfull-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=24m", "tmpfs", mountDir]);
  dataDir = path.join(mountDir, "data");
  fs.mkdirSync(dataDir);
  fs.copyFileSync(path.resolve(import.meta.dirname, "../.cache/template/citydaily.db"), path.join(dataDir, "citydaily.db"));
  filler = path.join(mountDir, "filler");
  sink = await new SmtpSink({ delayMs: 15 }).start();
  server = await startTestServer({ DATA_DIR: dataDir, SMTP_URL: sink.url, MAIL_SENDER: "off", MAIL_FROM: "citydaily <news@citydaily.example>" });
});
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
  if (mountDir) {
    execFileSync("umount", ["-l", mountDir], { stdio: "ignore" });
    fs.rmSync(mountDir, { recursive: true, force: true });
  }
});

/** Fills the file system to its last page. */
function fillDisk(): void {
  const fd = fs.openSync(filler, "w");
  try {
    for (const size of [1 << 20, 1 << 16, 1 << 12]) {
      const chunk = Buffer.alloc(size, 1);
      for (;;) {
        try {
          fs.writeSync(fd, chunk);
        } catch {
          break;
        }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

function runSender() {
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, "scripts/send-mail.ts")], {
    env: {
      ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "error", NOW: "", SMTP_URL: sink.url, MAIL_FROM: "citydaily <news@citydaily.example>",
      MAIL_CONCURRENCY: String(CONCURRENCY), MAIL_LEASE_SECONDS: "2",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c));
  child.stderr!.on("data", (c: Buffer) => (out += c));
  return new Promise<{ code: number | null; out: string }>((resolve) => child.once("exit", (code) => resolve({ code, out })));
}

describe.skipIf(!canMount)("the disk fills while mail:send delivers", () => {
  it("stops handing messages to the relay at the first delivery it cannot record, exits 74 with a clear line; the next run finishes, nothing lost", async () => {
    const db = server.ctx.db;
    for (let i = 0; i < READERS; i++) addSubscriber(db, CITY, `full${i}@example.org`);
    const id = addEdition(db, CITY, "2026-12-01", "Boise, a full disk")!;
    expect(queueEditionDigests(server.ctx, { id, placeGeoid: geoidOf(db, CITY), date: "2026-12-01" })).toBe(READERS);
    db.prepare("UPDATE outbox SET next_attempt_at = 0").run();
    // An empty WAL: every commit from here appends to it, so none can succeed on a full disk.
    db.pragma("wal_checkpoint(TRUNCATE)");

    let filledAt: number | undefined;
    let arrived = 0;
    sink.onArrival = () => {
      if (++arrived === FILL_AT) {
        fillDisk();
        filledAt = FILL_AT;
      }
    };
    const first = await runSender();
    sink.onArrival = undefined;
    expect(filledAt).toBe(FILL_AT);
    expect(first.code).toBe(74);
    expect(first.out).toMatch(/could not record deliveries/);
    expect(first.out).not.toMatch(/SqliteError|at .*\.ts:\d+/);
    // Nothing more handed to the relay: at most the messages already in flight (2 x MAIL_CONCURRENCY).
    const acceptedInFirst = sink.count;
    expect(acceptedInFirst).toBeLessThanOrEqual(FILL_AT + 2 * CONCURRENCY);

    // Room again: the next run delivers the rest.
    fs.rmSync(filler);
    const second = await runSender();
    expect(second.code).toBe(0);
    const statuses = db.prepare("SELECT status, COUNT(*) AS n FROM outbox WHERE edition_id = ? GROUP BY status").all(id);
    expect(statuses).toEqual([{ status: "sent", n: READERS }]);
    for (let i = 0; i < READERS; i++) expect(sink.to(`full${i}@example.org`).length).toBeGreaterThanOrEqual(1);
    // Sent twice: only those accepted and not recorded when the disk filled, each with its one Message-ID.
    const twice = Array.from({ length: READERS }, (_, i) => sink.to(`full${i}@example.org`)).filter((m) => m.length > 1);
    expect(twice.length).toBeLessThanOrEqual(2 * 2 * CONCURRENCY);
    for (const m of twice) expect(new Set(m.map((x) => x.parsed.messageId)).size).toBe(1);
    expect(sink.count).toBe(READERS + twice.reduce((n, m) => n + m.length - 1, 0));
    console.log(`disk full at the ${FILL_AT}th message: ${acceptedInFirst} accepted in the first run, ${sink.count - acceptedInFirst} in the second, ${twice.length} sent twice (same Message-ID)`);
  }, 60_000);
});
