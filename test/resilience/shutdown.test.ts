import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOpenMeteoServer, type OpenMeteoServer } from "../helpers/open-meteo-server.ts";
import { freshDataDir } from "../helpers/server.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** `node api/server.ts` as `npm start` runs it, in its own process, logging JSON lines. */
async function startServerProcess(env: Record<string, string>): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [path.join(ROOT, "api/server.ts")], {
    cwd: ROOT, env: { ...process.env, HOST: "127.0.0.1", PORT: "0", BASE_URL: "http://127.0.0.1", LOG_LEVEL: "info", MORNING_SCHEDULE: "off", ...env }, stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", () => reject(new Error("server exited before listening")));
    readline.createInterface({ input: child.stdout! }).on("line", (line) => {
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      if (entry.msg === "citydaily listening" && entry.url) resolve(entry.url);
    });
  });
  return { child, url, exited };
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
    const { child, url, exited } = await startServerProcess({
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
