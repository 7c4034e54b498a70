import { execFile, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import readline from "node:readline";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOpenMeteoServer, type OpenMeteoServer } from "../helpers/open-meteo-server.ts";
import { freshDataDir } from "../helpers/server.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** `node api/server.ts` as `npm start` runs it, in its own process, logging JSON lines. */
async function startServerProcess(env: Record<string, string>): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null>; shuttingDown: Promise<void> }> {
  const child = spawn(process.execPath, [path.join(ROOT, "api/server.ts")], {
    cwd: ROOT, env: { ...process.env, HOST: "127.0.0.1", PORT: "0", BASE_URL: "http://127.0.0.1", LOG_LEVEL: "info", MORNING_SCHEDULE: "off", ...env }, stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const lines = readline.createInterface({ input: child.stdout! });
  // The server has taken the signal: it logs this line, then stops listening.
  const shuttingDown = new Promise<void>((resolve) => lines.on("line", (line) => {
    if ((JSON.parse(line) as { msg?: string }).msg === "shutting down") resolve();
  }));
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", () => reject(new Error("server exited before listening")));
    lines.on("line", (line) => {
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      if (entry.msg === "citydaily listening" && entry.url) resolve(entry.url);
    });
  });
  return { child, url, exited, shuttingDown };
}

let weather: OpenMeteoServer;
let dataDir: string;

beforeAll(async () => {
  weather = await startOpenMeteoServer({ mode: "slow", delayMs: 1500 });
  dataDir = freshDataDir();
});
afterAll(async () => {
  await weather?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("graceful shutdown on SIGTERM", () => {
  it("stops accepting, finishes the request in flight, leaves the outbox consistent and exits 0", async () => {
    const { child, url, exited, shuttingDown } = await startServerProcess({
      DATA_DIR: dataDir, OPEN_METEO_URL: weather.url, WEATHER_TIMEOUT_MS: "10000", SHUTDOWN_TIMEOUT_MS: "8000",
    });
    const sub = await fetch(`${url}/api/subscribe`, {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: "reader@example.org", city: "Boise", state: "Idaho", slug: "boise-idaho" }),
    });
    expect(sub.status).toBe(200);

    // A live forecast that takes 1.5 s upstream is in flight when the signal comes.
    const inFlight = fetch(`${url}/api/weather/boise-idaho`);
    while (weather.calls === 0) await new Promise((r) => setTimeout(r, 20));
    child.kill("SIGTERM");
    // Once the server has taken the signal (a fixed 200 ms was not always enough on a busy machine).
    await shuttingDown;
    await new Promise((r) => setTimeout(r, 200));
    // New connections are refused while the old request finishes.
    const refused = await fetch(`${url}/api/cities`).then(() => "answered", (e: Error & { cause?: { code?: string } }) => e.cause?.code);
    expect(refused).toBe("ECONNREFUSED");

    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ condition: expect.any(String), high: expect.any(Number) });
    expect(await exited).toBe(0);

    const db = new Database(path.join(dataDir, "citydaily.db"), { readonly: true });
    try {
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
      // The welcome email was either delivered (to the outbox folder) or is still pending: never left claimed.
      const rows = db.prepare("SELECT kind, status, lease_owner FROM outbox").all() as Array<{ kind: string; status: string; lease_owner: string | null }>;
      expect(rows.map((r) => r.kind)).toEqual(["welcome"]);
      expect(["sent", "pending"], JSON.stringify(db.prepare("SELECT * FROM outbox").all())).toContain(rows[0].status);
      if (rows[0].status === "sent") expect(fs.readdirSync(path.join(dataDir, "outbox")).filter((f) => f.endsWith(".eml"))).toHaveLength(1);
    } finally {
      db.close();
    }
  });

  it("cuts a request that outlives SHUTDOWN_TIMEOUT_MS instead of hanging", async () => {
    weather.configure({ delayMs: 60_000 });
    const { child, url, exited } = await startServerProcess({
      DATA_DIR: dataDir, OPEN_METEO_URL: weather.url, WEATHER_TIMEOUT_MS: "60000", SHUTDOWN_TIMEOUT_MS: "500",
    });
    const before = weather.calls;
    const stuck = fetch(`${url}/api/weather/boise-idaho`).then((r) => r.status, () => "cut");
    while (weather.calls === before) await new Promise((r) => setTimeout(r, 20));
    child.kill("SIGTERM");
    expect(await stuck).toBe("cut");
    expect(await exited).toBe(0);
  });
});

describe("keep-alive connections at SIGTERM", () => {
  it("the answer in flight says Connection: close, and idle keep-alive sockets are closed", async () => {
    weather.configure({ delayMs: 800 });
    const { child, url, exited } = await startServerProcess({ DATA_DIR: dataDir, OPEN_METEO_URL: weather.url, WEATHER_TIMEOUT_MS: "10000", SHUTDOWN_TIMEOUT_MS: "5000" });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    const get = (p: string) => new Promise<{ status: number; connection: string | undefined; socket: net.Socket }>((resolve, reject) => {
      const req = http.get(`${url}${p}`, { agent }, (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode!, connection: res.headers.connection, socket: req.socket as net.Socket }));
      });
      req.on("error", reject);
    });
    try {
      await fetch(`${url}/api/subscribe`, {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email: "keepalive@example.org", city: "Boise", state: "Idaho", slug: "boise-idaho" }),
      });
      // One idle keep-alive socket, then a slow answer in flight on another.
      const idle = await get("/api/pricing");
      expect(idle.connection).toBe("keep-alive");
      const idleClosed = new Promise<void>((resolve) => idle.socket.once("close", () => resolve()));
      const before = weather.calls;
      const slow = get("/api/weather/boise-idaho");
      while (weather.calls === before) await new Promise((r) => setTimeout(r, 20));
      child.kill("SIGTERM");
      await idleClosed; // closed by the server, not left for the client to find reset
      const answer = await slow;
      expect(answer.status).toBe(200);
      expect(answer.connection).toBe("close");
      expect(await exited).toBe(0);
    } finally {
      agent.destroy();
      child.kill("SIGKILL"); // no-op once it has exited; never left running on a failure
    }
  });
});

describe("SIGTERM in the middle of a morning run", () => {
  it("with the weather provider stalled, exits within SHUTDOWN_TIMEOUT_MS; the next run does the rest, each city once", async () => {
    const CITIES = 40;
    const dir = freshDataDir();
    const stalled = await startOpenMeteoServer({ mode: "stall" });
    let server: ChildProcess | undefined;
    try {
      const seed = new Database(path.join(dir, "citydaily.db"));
      const geoids = seed.prepare("SELECT geoid FROM places ORDER BY population DESC LIMIT ?").pluck().all(CITIES) as string[];
      const add = seed.prepare("INSERT INTO subscribers (email, place_geoid, status, created_at, updated_at) VALUES (?, ?, 'active', ?, ?)");
      seed.transaction(() => geoids.forEach((g, i) => add.run(`m${i}@example.org`, g, "2026-11-22T00:00:00Z", "2026-11-22T00:00:00Z")))();
      seed.close();
      // Every city due (publication hour 0), the run's forecast requests (several cells a request,
      // one at a time without an API key) waiting on a provider that never answers within 60 s.
      const env = { DATA_DIR: dir, OPEN_METEO_URL: stalled.url, WEATHER_TIMEOUT_MS: "60000", PUBLISH_HOUR: "0", NOW: "2026-11-22T18:00:00Z", MAIL_SENDER: "off" };
      const { child, exited } = await startServerProcess({ ...env, MORNING_SCHEDULE: "on", SHUTDOWN_TIMEOUT_MS: "1500" });
      server = child;
      while (stalled.calls < 1) await new Promise((r) => setTimeout(r, 20));
      const signalled = Date.now();
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      const took = Date.now() - signalled;
      expect(took).toBeLessThan(1500 + 1000);
      const after = new Database(path.join(dir, "citydaily.db"), { readonly: true });
      try {
        // Nothing composed without its forecast because of the stop (the lease is released: the next run below is not kept out).
        expect(after.prepare("SELECT count(*) FROM editions").pluck().get()).toBe(0);
      } finally {
        after.close();
      }
      // The provider answers again: the next run composes every city, once.
      stalled.setMode("ok");
      const { stdout } = await promisify(execFile)(process.execPath, [path.join(ROOT, "scripts/morning.ts")], {
        cwd: ROOT, env: { ...process.env, ...env, BASE_URL: "http://127.0.0.1", LOG_LEVEL: "silent" },
      });
      expect(stdout).toContain(`${CITIES} due, ${CITIES} composed, 0 skipped, 0 failed`);
      const done = new Database(path.join(dir, "citydaily.db"), { readonly: true });
      try {
        expect(done.prepare("SELECT count(*), count(DISTINCT place_geoid) FROM editions").raw().get()).toEqual([CITIES, CITIES]);
      } finally {
        done.close();
      }
      console.log(`SIGTERM mid-morning (${CITIES} cities due, provider stalled): exited in ${took} ms`);
    } finally {
      server?.kill("SIGKILL"); // no-op once it has exited
      await stalled.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
