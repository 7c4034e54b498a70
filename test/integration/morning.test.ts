import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { pino } from "pino";
import { newestIndexedId, searchBitsUpto } from "../../src/store/search/bits.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../src/config/paths.ts";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { findPlaceBySlug } from "../../src/store/places/places.ts";
import { openDatabase, databaseFile } from "../../src/store/db.ts";
import { startOpenMeteoServer, type OpenMeteoServer } from "../helpers/open-meteo-server.ts";
import { addSubscriber, geoidOf } from "../helpers/seed.ts";
import { freshDataDir, startTestServer, type TestServer } from "../helpers/server.ts";

const run = promisify(execFile);

// 12:00 UTC on Nov 22: 07:00 in New York (past the 6 o'clock publication), 02:00 in Honolulu (not yet).
const NOW = "2026-11-22T12:00:00.000Z";
const HONOLULU = "honolulu-hawaii";
const NEW_YORK = "new-york-new-york";

let meteo: OpenMeteoServer;
let server: TestServer;

beforeAll(async () => {
  meteo = await startOpenMeteoServer({ today: "2026-11-22" });
  server = await startTestServer({ OPEN_METEO_URL: meteo.url, NOW, MORNING_SCHEDULE: "off", MAIL_SENDER: "off", WEATHER_TIMEOUT_MS: "2000" });
  addSubscriber(server.ctx.db, HONOLULU, "reader@example.org");
  addSubscriber(server.ctx.db, NEW_YORK, "reader@example.org");
  addSubscriber(server.ctx.db, NEW_YORK, "second@example.org");
});
afterAll(async () => {
  await server?.stop();
  await meteo?.close();
});

async function archive(slug: string, date: string) {
  const res = await server.get(`/api/archive/${slug}/${date}`);
  return { status: res.status, body: (await res.json()) as { code?: string; subject?: string; html?: string; date?: string } };
}

function editionCount(db: Database.Database, slug?: string): number {
  return slug
    ? (db.prepare("SELECT COUNT(*) FROM editions WHERE place_geoid = ?").pluck().get(geoidOf(db, slug)) as number)
    : (db.prepare("SELECT COUNT(*) FROM editions").pluck().get() as number);
}

function digestCount(db: Database.Database): number {
  return db.prepare("SELECT COUNT(*) FROM outbox WHERE kind = 'digest'").pluck().get() as number;
}

function unfinished(db: Database.Database): number {
  return db.prepare("SELECT COUNT(*) FROM edition_publish WHERE site_published_at IS NULL OR digests_queued_at IS NULL").pluck().get() as number;
}

describe("the morning pipeline across timezones (frozen clock)", () => {
  it("publishes New York at 07:00 local while Honolulu, at 02:00, stays edition_not_found", async () => {
    const s = await runMorning(server.ctx);
    expect(s).toMatchObject({ cities: 2, due: 1, composed: 1, skipped: 1, failed: 0, withoutWeather: 0, published: 1, publishFailed: 0, digestsQueued: 2 });
    // The search's kept sets took the new edition in.
    expect(searchBitsUpto(server.ctx.db)).toBe(newestIndexedId(server.ctx.db));
    expect(newestIndexedId(server.ctx.db)).toBeGreaterThan(0);

    const ny = await archive(NEW_YORK, "2026-11-22");
    expect(ny.status).toBe(200);
    expect(ny.body.subject).toMatch(/^New York, Nov 22: /);
    expect(ny.body.html).toContain("<h2>Weather</h2>");
    expect(ny.body.html).toContain("<table>");
    expect(ny.body.html).toMatch(/Sunrise \d{1,2}:\d\d AM, sunset \d{1,2}:\d\d PM/);

    const hnl = await archive(HONOLULU, "2026-11-22");
    expect(hnl.status).toBe(404);
    expect(hnl.body.code).toBe("edition_not_found");
    // No fallback to another day either.
    expect((await archive(HONOLULU, "2026-11-21")).body.code).toBe("edition_not_found");
  });

  it("serves the stored snapshot as today's /api/weather, without asking the provider again", async () => {
    const calls = meteo.calls;
    const res = await server.get(`/api/weather/${NEW_YORK}`);
    expect(res.status).toBe(200);
    const stored = JSON.parse(server.ctx.db.prepare("SELECT weather_json FROM editions WHERE place_geoid = ?").pluck().get(geoidOf(server.ctx.db, NEW_YORK)) as string);
    // New York is on the coast: today's tides (computed, never stored) come with the stored weather.
    const { tides, ...weather } = await res.json() as Record<string, unknown>;
    expect(weather).toEqual(stored.today);
    expect(tides).toMatchObject({ station: { id: expect.stringMatching(/^noaa\//) }, datum: "MLLW", units: "feet" });
    expect(meteo.calls).toBe(calls);
  });

  it("publishes Honolulu once its own morning comes, and New York is not repeated", async () => {
    const s = await runMorning(server.ctx, { now: new Date("2026-11-22T17:00:00Z") }); // 07:00 in Honolulu
    expect(s).toMatchObject({ due: 1, composed: 1, skipped: 1, digestsQueued: 1 });
    const hnl = await archive(HONOLULU, "2026-11-22");
    expect(hnl.status).toBe(200);
    expect(hnl.body.subject).toMatch(/^Honolulu, Nov 22: /);
    expect(editionCount(server.ctx.db, NEW_YORK)).toBe(1);
  });

  it("keys each edition to the city's own date: past midnight in New York is not yet its morning", async () => {
    // 00:30 on Nov 23 in New York, 19:30 on Nov 22 in Honolulu: nothing is due.
    const night = await runMorning(server.ctx, { now: new Date("2026-11-23T05:30:00Z") });
    expect(night).toMatchObject({ due: 0, composed: 0, skipped: 2 });
    expect((await archive(NEW_YORK, "2026-11-23")).body.code).toBe("edition_not_found");

    meteo.configure({ today: "2026-11-23" });
    // 06:30 on Nov 23 in New York, 01:30 on Nov 23 in Honolulu.
    const morning = await runMorning(server.ctx, { now: new Date("2026-11-23T11:30:00Z") });
    expect(morning).toMatchObject({ due: 1, composed: 1 });
    expect((await archive(NEW_YORK, "2026-11-23")).status).toBe(200);
    expect((await archive(HONOLULU, "2026-11-23")).body.code).toBe("edition_not_found");
    const city = await (await server.get(`/api/city/${NEW_YORK}`)).json() as { archives: Array<{ date: string }> };
    expect(city.archives.map((a) => a.date)).toEqual(["2026-11-23", "2026-11-22"]);
  });

  it("is idempotent: running again changes nothing and queues nothing twice", async () => {
    const before = { editions: editionCount(server.ctx.db), digests: digestCount(server.ctx.db) };
    const again = await runMorning(server.ctx, { now: new Date("2026-11-23T11:30:00Z") });
    expect(again).toMatchObject({ due: 0, composed: 0, published: 0, digestsQueued: 0 });
    expect({ editions: editionCount(server.ctx.db), digests: digestCount(server.ctx.db) }).toEqual(before);
    expect(unfinished(server.ctx.db)).toBe(0);
  });

  it("finishes the publishing a crashed run left undone, without composing again", async () => {
    // A run that died after storing the edition leaves exactly this: the edition, its ledger row unstamped.
    const id = server.ctx.db.prepare("SELECT id FROM editions WHERE place_geoid = ? AND date = '2026-11-23'").pluck().get(geoidOf(server.ctx.db, NEW_YORK)) as number;
    server.ctx.db.prepare("UPDATE edition_publish SET site_published_at = NULL, digests_queued_at = NULL WHERE edition_id = ?").run(id);
    server.ctx.db.prepare("DELETE FROM outbox WHERE edition_id = ?").run(id);
    const editions = editionCount(server.ctx.db);

    const s = await runMorning(server.ctx, { now: new Date("2026-11-23T12:00:00Z") });
    expect(s).toMatchObject({ composed: 0, published: 1, digestsQueued: 2 });
    expect(s.pagesWritten).toBeGreaterThan(0);
    expect(editionCount(server.ctx.db)).toBe(editions);
    expect(unfinished(server.ctx.db)).toBe(0);
  });
});

describe("when the weather provider fails", () => {
  it("still publishes the edition, without a forecast, and logs it", async () => {
    meteo.configure({ today: "2026-11-22" });
    meteo.setMode("error");
    // A real logger writing to memory, to see what an operator would see.
    const logged: Array<{ level: number; msg: string; slug?: string }> = [];
    const quiet = server.ctx.log;
    server.ctx.log = pino({ level: "warn" }, { write: (line: string) => void logged.push(JSON.parse(line)) });
    try {
      addSubscriber(server.ctx.db, "denver-colorado", "mountain@example.org");
      // 08:00 in Denver on Nov 22.
      const s = await runMorning(server.ctx, { now: new Date("2026-11-22T15:00:00Z") });
      expect(s).toMatchObject({ due: 1, composed: 1, withoutWeather: 1, failed: 0 });
      const den = await archive("denver-colorado", "2026-11-22");
      expect(den.status).toBe(200);
      expect(den.body.html).toContain("The forecast was not available this morning.");
      expect(den.body.subject).toMatch(/^Denver, Nov 22: sunrise \d/);
      const stored = server.ctx.db.prepare("SELECT weather_json FROM editions WHERE place_geoid = ?").pluck().get(geoidOf(server.ctx.db, "denver-colorado"));
      expect(stored).toBeNull();
      expect(logged).toContainEqual(expect.objectContaining({ level: 40, slug: "denver-colorado", msg: expect.stringMatching(/weather unavailable/) }));
    } finally {
      server.ctx.log = quiet;
      meteo.setMode("ok");
    }
  });
});

describe("two morning runs at once", () => {
  it("store each edition once and queue each digest once", async () => {
    const dataDir = freshDataDir("citydaily-morning-");
    const cities = ["new-york-new-york", "chicago-illinois", "denver-colorado", "phoenix-arizona", "seattle-washington", "anchorage-alaska", "san-juan-puerto-rico", "st-louis-missouri"];
    const db = openDatabase(databaseFile(dataDir));
    try {
      for (const [i, slug] of cities.entries()) {
        addSubscriber(db, slug, `a${i}@example.org`);
        addSubscriber(db, slug, `b${i}@example.org`);
      }
      addSubscriber(db, HONOLULU, "hnl@example.org"); // 04:00 there: not due
      // 14:00 UTC: 09:00 in New York ... 05:00 in Anchorage (PUBLISH_HOUR), 04:00 in Honolulu.
      const env = { ...process.env, DATA_DIR: dataDir, NOW: "2026-11-22T14:00:00Z", OPEN_METEO_URL: meteo.url, LOG_LEVEL: "silent", MAIL_SENDER: "off" };
      const script = path.join(PROJECT_ROOT, "scripts/morning.ts");
      const [a, b] = await Promise.all([
        run(process.execPath, [script], { env, cwd: PROJECT_ROOT, timeout: 120_000 }),
        run(process.execPath, [script], { env, cwd: PROJECT_ROOT, timeout: 120_000 }),
      ]);
      const lines = [a.stdout.trim(), b.stdout.trim()];
      for (const line of lines) expect(line).toMatch(/^morning 2026-11-22T14:00:00\.000Z: /);
      const composed = lines.map((l) => Number(/(\d+) composed/.exec(l)?.[1] ?? 0));
      expect(composed[0]! + composed[1]!).toBe(cities.length);

      expect(editionCount(db)).toBe(cities.length);
      expect(db.prepare("SELECT COUNT(DISTINCT place_geoid || date) FROM editions").pluck().get()).toBe(cities.length);
      expect(digestCount(db)).toBe(cities.length * 2);
      expect(db.prepare("SELECT COUNT(*) FROM (SELECT subscriber_id, edition_id FROM outbox WHERE kind = 'digest' GROUP BY 1, 2 HAVING COUNT(*) > 1)").pluck().get()).toBe(0);
      expect(unfinished(db)).toBe(0);

      // A third run afterwards finds nothing to do.
      const c = await run(process.execPath, [script], { env, cwd: PROJECT_ROOT, timeout: 120_000 });
      expect(c.stdout).toMatch(/ 0 due, 0 composed/);
    } finally {
      db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});

describe("storing is atomic and single", () => {
  it("two morning runs racing on one city and date store one edition", async () => {
    addSubscriber(server.ctx.db, "phoenix-arizona", "desert@example.org");
    const place = findPlaceBySlug(server.ctx.db, "phoenix-arizona")!;
    const now = new Date("2026-11-22T15:00:00Z");
    const runs = await Promise.all([runMorning(server.ctx, { now, publish: false }), runMorning(server.ctx, { now, publish: false })]);
    // One run holds the lease and stores it; the other is kept out (and UNIQUE keys back the lease up).
    expect(runs.filter((r) => r.busy)).toHaveLength(1);
    expect(editionCount(server.ctx.db, "phoenix-arizona")).toBe(1);
    // The winner's ledger row was written with it; the loser left nothing behind.
    expect(server.ctx.db.prepare("SELECT COUNT(*) FROM edition_publish WHERE edition_id IN (SELECT id FROM editions WHERE place_geoid = ?)").pluck().get(place.geoid)).toBe(1);
  });

  it("a run killed midway blocks nothing: the next run takes over its lease and finishes", async () => {
    const dataDir = freshDataDir("citydaily-crash-");
    const db = openDatabase(databaseFile(dataDir));
    meteo.configure({ mode: "slow", delayMs: 60_000 });
    try {
      addSubscriber(db, NEW_YORK, "crash@example.org");
      addSubscriber(db, "chicago-illinois", "crash@example.org");
      const env = { ...process.env, DATA_DIR: dataDir, NOW: "2026-11-22T15:00:00Z", OPEN_METEO_URL: meteo.url, LOG_LEVEL: "silent", WEATHER_TIMEOUT_MS: "60000" };
      const script = path.join(PROJECT_ROOT, "scripts/morning.ts");
      const child = spawn(process.execPath, [script], { env, cwd: PROJECT_ROOT, stdio: "ignore" });
      let exitCode: number | null | undefined;
      const exited = new Promise((resolve) => child.once("exit", (code) => resolve((exitCode = code))));
      const callsBefore = meteo.calls;
      // Wait until it holds the lease and is waiting on the forecast, then kill it outright.
      while (exitCode === undefined && (!db.prepare("SELECT value FROM meta WHERE key = 'morning.lease'").pluck().get() || meteo.calls === callsBefore)) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(exitCode, "the run ended before it could be killed").toBeUndefined();
      child.kill("SIGKILL");
      await exited;
      expect(editionCount(db)).toBe(0);

      meteo.configure({ mode: "ok" });
      const { stdout } = await run(process.execPath, [script], { env, cwd: PROJECT_ROOT, timeout: 120_000 });
      expect(stdout).toMatch(/ 2 due, 2 composed, /);
      expect(editionCount(db)).toBe(2);
      expect(unfinished(db)).toBe(0);
      expect(digestCount(db)).toBe(2);
    } finally {
      meteo.configure({ mode: "ok" });
      db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
