import { execFile, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import readline from "node:readline";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOpenMeteoServer, type OpenMeteoServer } from "../helpers/open-meteo-server.ts";
import { freshDataDir } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";

// A bounded soak: SOAK_SECONDS (default 600) of mixed traffic against the real server in its own
// process, with its background mail sender delivering to a real SMTP server and a morning run (as
// its own process, one "day" later each time) every MORNING_EVERY_SECONDS. At the end: nothing lost,
// nothing sent twice, memory flat, no file-descriptor growth. Prints the figures for docs/resilience.md.

const ROOT = path.resolve(import.meta.dirname, "../..");
const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const MORNING_EVERY_SECONDS = Number(process.env.MORNING_EVERY_SECONDS ?? 60);
const CONCURRENCY = 8;
const CITIES = [
  ["boise-idaho", "Boise", "Idaho"], ["tucson-arizona", "Tucson", "Arizona"], ["st-louis-missouri", "St. Louis", "Missouri"],
  ["denver-colorado", "Denver", "Colorado"], ["new-york-new-york", "New York", "New York"], ["honolulu-hawaii", "Honolulu", "Hawaii"],
] as const;
const run = promisify(execFile);

let sink: SmtpSink;
let meteo: OpenMeteoServer;
let dataDir: string;
let server: ChildProcess;
let url: string;
const messageIds: string[] = [];

// Morning n runs with its clock pinned to a past day (the server keeps the real clock, so the
// digests each morning queues are due at once for its sender).
const day = (n: number) => new Date(Date.UTC(2026, 0, 1 + n, 20)).toISOString();

beforeAll(async () => {
  sink = await new SmtpSink({ parse: false }).start();
  meteo = await startOpenMeteoServer({ today: "2026-11-22" });
  dataDir = freshDataDir("citydaily-soak-");
  const port = await freePort();
  sink.onArrival = (raw) => { messageIds.push(/^Message-ID:\s*(\S+)/im.exec(raw)?.[1] ?? "?"); };
  server = spawn(process.execPath, [path.join(ROOT, "api/server.ts")], {
    cwd: ROOT, stdio: ["ignore", "pipe", "inherit"],
    env: {
      ...process.env, HOST: "127.0.0.1", PORT: String(port), BASE_URL: "http://127.0.0.1", DATA_DIR: dataDir, LOG_LEVEL: "warn",
      MORNING_SCHEDULE: "off", SMTP_URL: sink.url, MAIL_SEND_INTERVAL_MS: "1000", OPEN_METEO_URL: meteo.url,
      SUBSCRIBE_RATE_LIMIT: "10000000", PUBLISH_HOUR: "0",
    },
  });
  url = `http://127.0.0.1:${port}`;
  // Until it answers, it is still opening the database.
  for (;;) {
    if (server.exitCode !== null) throw new Error("server exited");
    if (await fetch(`${url}/api/cities`).then((r) => r.ok, () => false)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  readline.createInterface({ input: server.stdout! }).on("line", (l) => { if (/"level":(50|60)/.test(l)) console.error(l); });
});

afterAll(async () => {
  server?.kill("SIGTERM");
  await new Promise((r) => server?.once("exit", r));
  await sink?.stop();
  await meteo?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** A port nothing listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
const fds = (pid: number) => fs.readdirSync(`/proc/${pid}/fd`).length;

describe(`soak: ${SECONDS} s of mixed traffic with the sender and morning runs`, () => {
  it("loses nothing, sends nothing twice, and keeps memory and descriptors flat", async () => {
    const started = Date.now();
    const stopAt = started + SECONDS * 1000;
    const samples: Array<{ t: number; rss: number; fds: number }> = [];
    const statuses = new Map<number, number>();
    let requests = 0, subscribed = 0, mornings = 0, serverErrors = 0;

    const sampler = setInterval(() => {
      samples.push({ t: Date.now() - started, rss: rssMb(server.pid!), fds: fds(server.pid!) });
      if (samples.length % 12 === 0) console.log(`soak ${Math.round((Date.now() - started) / 1000)} s: ${requests} requests, rss ${samples.at(-1)!.rss.toFixed(0)} MB, fds ${samples.at(-1)!.fds}, ${sink.count} delivered`);
    }, 5000);
    // One morning run ("day" n) every MORNING_EVERY_SECONDS, the first once every city has a reader.
    const mornings$ = (async () => {
      while (Date.now() < stopAt) {
        await new Promise((r) => setTimeout(r, Math.min(MORNING_EVERY_SECONDS * 1000, Math.max(0, stopAt - Date.now()))));
        if (Date.now() >= stopAt && mornings > 0) break;
        // Days ahead of the clock, into the site the server serves: on purpose (scripts/cli/future-guard.ts).
        await run(process.execPath, [path.join(ROOT, "scripts/morning.ts"), "--allow-future"], {
          cwd: ROOT, env: { ...process.env, BASE_URL: "http://127.0.0.1", DATA_DIR: dataDir, LOG_LEVEL: "warn", NOW: day(mornings), PUBLISH_HOUR: "0", OPEN_METEO_URL: meteo.url },
        });
        mornings++;
      }
    })();

    const request = async (p: string, init?: RequestInit) => {
      const r = await fetch(url + p, init);
      await r.arrayBuffer();
      requests++;
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      if (r.status >= 500) serverErrors++;
      return r;
    };
    const worker = async (w: number) => {
      for (let i = 0; Date.now() < stopAt; i++) {
        const [slug, city, state] = CITIES[(w + i) % CITIES.length];
        switch (i % 10) {
          case 0: {
            const r = await request("/api/subscribe", {
              method: "POST", headers: { "Content-Type": "application/json" },
              body: JSON.stringify({ email: `soak-${w}-${i}@example.org`, city, state, slug }),
            });
            if (r.status === 200) subscribed++;
            break;
          }
          case 1: await request("/api/cities"); break;
          case 2: await request(`/api/city/${slug}`); break;
          case 3: await request(`/api/search?q=${["weather", "sunrise", "snow OR rain", "\"good morning\""][i % 4]}`); break;
          case 4: await request(`/api/weather/${slug}`); break;
          case 5: await request(`/${slug}`); break;
          case 6: await request(`/${slug}.md`); break;
          case 7: await request("/feed.xml"); break;
          case 8: await request(`/api/facts/${slug}`); break;
          default: await request(`/api/archive/${slug}/${day(0).slice(0, 10)}`); break;
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
    await mornings$;
    clearInterval(sampler);

    // Let the sender finish what is queued.
    const db = new Database(path.join(dataDir, "citydaily.db"), { readonly: true });
    const pending = () => db.prepare("SELECT count(*) FROM outbox WHERE status IN ('pending', 'sending')").pluck().get() as number;
    for (let i = 0; i < 600 && pending() > 0; i++) await new Promise((r) => setTimeout(r, 500));
    const outbox = db.prepare("SELECT kind, status, count(*) AS n FROM outbox GROUP BY kind, status").all() as Array<{ kind: string; status: string; n: number }>;
    const subscribers = db.prepare("SELECT count(*) FROM subscribers").pluck().get() as number;
    const editions = db.prepare("SELECT count(*) FROM editions").pluck().get() as number;
    db.close();

    const warm = samples.filter((s) => s.t >= 60_000);
    const firstMinute = warm.slice(0, 12), lastMinute = warm.slice(-12);
    const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    const figures = {
      seconds: SECONDS, requests, perSecond: Math.round(requests / SECONDS), statuses: Object.fromEntries(statuses), subscribed, subscribers,
      mornings, editions, outbox, delivered: sink.count,
      rssMb: { min: Math.min(...samples.map((s) => s.rss)).toFixed(0), afterWarmup: avg(firstMinute.map((s) => s.rss)).toFixed(0), lastMinute: avg(lastMinute.map((s) => s.rss)).toFixed(0), max: Math.max(...samples.map((s) => s.rss)).toFixed(0) },
      fds: { first: samples[0]?.fds, last: samples.at(-1)?.fds, max: Math.max(...samples.map((s) => s.fds)) },
    };
    console.log(`soak figures: ${JSON.stringify(figures)}`);

    expect(serverErrors).toBe(0);
    expect(subscribers).toBe(subscribed);
    // Every queued message was delivered exactly once (the sink counts one per message).
    expect(outbox.every((r) => r.status === "sent")).toBe(true);
    expect(sink.count).toBe(outbox.reduce((a, r) => a + r.n, 0));
    expect(new Set(messageIds).size).toBe(messageIds.length);
    expect(mornings).toBeGreaterThan(0);
    expect(editions).toBe(CITIES.length * mornings);
    // Flat: the last minute within 25% of the first warm minute; descriptors back near where they were.
    if (warm.length >= 24) expect(avg(lastMinute.map((s) => s.rss))).toBeLessThan(avg(firstMinute.map((s) => s.rss)) * 1.25);
    expect(figures.fds.last!).toBeLessThanOrEqual(figures.fds.first! + 20);
  });
});
