import { pino } from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { gridKey } from "../../src/core/weather/grid-cells.ts";
import { createOpenMeteoProvider } from "../../src/integrations/weather/open-meteo.ts";
import { formatSummary, type MorningSummary } from "../../src/services/morning/summary.ts";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { lookupTownZones } from "../../src/services/weather/place-zones.ts";
import { gatherRun } from "../../src/services/sources/run-sources.ts";
import { findPlaceBySlug } from "../../src/store/places/places.ts";
import { startOpenMeteoServer, type OpenMeteoServer } from "../helpers/open-meteo-server.ts";
import { addSubscriber, geoidOf } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { nwsAlert, startTownSourcesServer, type TownSourcesServer } from "../helpers/town-sources-server.ts";

// The morning at national grain (per town it took 25 minutes): each source asked once per thing towns share (a grid
// cell and timezone for Open-Meteo, the whole country for NWS alerts), towns composed from memory;
// the free tier's 429s obeyed; alerts reaching the right towns by zone, county and polygon; a source
// down or hung costs nothing but itself.

// White Pine County (NV): Ely in the valley zone, McGill in the mountain zone, Ruth not looked up yet.
// Washoe County: Reno and Sparks. Two pairs share a 0.1° cell (Mesquite/Bunkerville, Gardnerville/
// Gardnerville Ranchos). One town in each other U.S. timezone, for batches per timezone.
const NEVADA = ["ely-nevada", "mcgill-nevada", "ruth-nevada", "reno-nevada", "sparks-nevada", "mesquite-nevada", "bunkerville-nevada", "gardnerville-nevada", "gardnerville-ranchos-nevada"];
const OTHERS = ["new-york-new-york", "chicago-illinois", "denver-colorado", "phoenix-arizona", "anchorage-alaska", "honolulu-hawaii"];
const TOWNS = [...NEVADA, ...OTHERS];
// 20:00 UTC: past 06:00 from New York to Honolulu. Each test is its own day.
const day = (d: number) => new Date(`2026-11-${String(d).padStart(2, "0")}T20:00:00Z`);
const date = (d: number) => `2026-11-${String(d).padStart(2, "0")}`;

let meteo: OpenMeteoServer;
let src: TownSourcesServer;
let server: TestServer;
let logged: Array<{ level: number; msg: string; [k: string]: unknown }>;

beforeAll(async () => {
  meteo = await startOpenMeteoServer();
  src = await startTownSourcesServer();
  server = await startTestServer({
    OPEN_METEO_URL: meteo.url, NWS_API_URL: src.url, AIR_QUALITY_API_URL: src.url, MORNING_SCHEDULE: "off", MAIL_SENDER: "off",
    WEATHER_TIMEOUT_MS: "2000", SOURCES_TIMEOUT_MS: "2000", SOURCES_RUN_CONCURRENCY: "1", SOURCES_RUN_BUDGET_MS: "8000",
  });
  for (const slug of TOWNS) addSubscriber(server.ctx.db, slug, `reader@${slug}.example.org`);
});
afterAll(async () => {
  await server?.stop();
  await src?.close();
  await meteo?.close();
});
beforeEach(() => {
  logged = [];
  server.ctx.log = pino({ level: "info" }, { write: (line: string) => void logged.push(JSON.parse(line)) });
});

const place = (slug: string) => findPlaceBySlug(server.ctx.db, slug)!;
const edition = (slug: string, d: number) => server.ctx.db.prepare("SELECT markdown, weather_json FROM editions WHERE place_geoid = ? AND date = ?")
  .get(geoidOf(server.ctx.db, slug), date(d)) as { markdown: string; weather_json: string | null } | undefined;
const provider = (s: MorningSummary, name: string) => s.providers!.find((p) => p.provider === name)!;
const cells = (zone?: string) => new Set(TOWNS.map(place).filter((p) => !zone || p.timezone === zone).map((p) => gridKey(p.latitude, p.longitude, p.timezone)));
const timezones = () => new Set(TOWNS.map((t) => place(t).timezone));

describe("a morning at national grain", () => {
  it("asks Open-Meteo once per timezone for its grid cells, NWS once for the country, and composes every town with its forecast", async () => {
    const forecastsBefore = meteo.calls;
    const s = await runMorning(server.ctx, { now: day(20) });
    const without = TOWNS.filter((t) => edition(t, 20)?.weather_json === null);
    expect(without).toEqual([]);
    expect(s).toMatchObject({ due: TOWNS.length, composed: TOWNS.length, failed: 0, withoutWeather: 0 });
    // 15 towns, 13 cells, 7 timezones: one request per timezone, each cell asked once.
    expect(cells().size).toBe(TOWNS.length - 2);
    expect(meteo.calls - forecastsBefore).toBe(timezones().size);
    const pacific = meteo.requests.find((q) => q.get("timezone") === "America/Los_Angeles")!;
    expect(pacific.get("latitude")!.split(",")).toHaveLength(cells("America/Los_Angeles").size);
    expect(pacific.get("daily")).toContain("uv_index_max");
    expect(provider(s, "Open-Meteo forecast")).toMatchObject({ requests: timezones().size, locations: cells().size, townsServed: TOWNS.length, townsWithout: 0, rateLimited: 0 });
    // Air quality: every cell in one request (one timezone, GMT); NWS: one national request.
    expect(provider(s, "Open-Meteo air quality")).toMatchObject({ requests: 1, locations: cells().size, townsServed: TOWNS.length });
    const national = src.requests.filter((r) => r.path === "/alerts/active");
    expect(national.map((r) => r.query.toString())).toEqual(["status=actual"]);
    expect(String(national[0]!.headers["user-agent"])).toMatch(/^citydaily \(.+, news@.+\)$/);
    expect(provider(s, "NWS alerts")).toMatchObject({ requests: 1, townsServed: TOWNS.length });
    expect(formatSummary(s)).toMatch(/; Open-Meteo forecast: 7 requests, 13 locations, 15 towns served; Open-Meteo air quality: 1 requests, 13 locations, 15 towns served; NWS alerts: 1 requests, 15 towns served; /);
    // Towns of one cell got the same forecast; each edition keeps its own coordinates; the UV index is stored.
    const [gville, ranchos] = [edition("gardnerville-nevada", 20)!, edition("gardnerville-ranchos-nevada", 20)!].map((e) => JSON.parse(e.weather_json!));
    expect(gville.daily).toEqual(ranchos.daily);
    expect(gville.today.latitude).toBe(place("gardnerville-nevada").latitude);
    expect(gville.daily[0].uvIndexMax).toEqual(expect.any(Number));
    expect(edition("ely-nevada", 20)!.markdown).toContain("Air quality: 42, good");
  });

  it("a location missing from a multi-location answer: its towns go without a forecast, the others have theirs", async () => {
    const ely = place("ely-nevada");
    const elyCell = gridKey(ely.latitude, ely.longitude, ely.timezone).split("|")[0]!;
    meteo.configure({ omit: (lat, lon) => `${lat},${lon}` === elyCell });
    try {
      const s = await runMorning(server.ctx, { now: day(21) });
      expect(s).toMatchObject({ composed: TOWNS.length, withoutWeather: 1 });
      expect(edition("ely-nevada", 21)!.weather_json).toBeNull();
      expect(edition("mcgill-nevada", 21)!.weather_json).not.toBeNull();
      expect(provider(s, "Open-Meteo forecast")).toMatchObject({ townsWithout: 1, failures: 0 });
    } finally {
      meteo.configure({ omit: undefined });
    }
  });

  it("a run after a crash reuses the answers stored this morning instead of asking again", async () => {
    // A run that gathered and then died before composing: its answers are stored as they came.
    const due = TOWNS.map((slug) => ({ place: place(slug), date: date(22) }));
    await gatherRun(server.ctx, due, { now: day(22) }).done;
    const before = meteo.log.length;
    const s = await runMorning(server.ctx, { now: new Date(day(22).getTime() + 10 * 60_000) });
    expect(s).toMatchObject({ composed: TOWNS.length, withoutWeather: 0 });
    expect(meteo.log.length - before).toBe(0);
    expect(provider(s, "Open-Meteo forecast")).toMatchObject({ reused: cells().size, requests: 0, townsServed: TOWNS.length });
    expect(provider(s, "Open-Meteo air quality")).toMatchObject({ reused: cells().size, requests: 0 });
  });
});

describe("the free tier's limits, without a key", () => {
  for (const [window, limit, d, extra] of [["minute", { perMinute: 5 }, 23, "elko-nevada"], ["hour", { perHour: 5 }, 24, "fallon-nevada"], ["day", { perDay: 5 }, 25, "winnemucca-nevada"]] as const) {
    it(`a 429 for the ${window}: no request inside that window, this run or the next; the towns go without and one line says why`, async () => {
      server.ctx.db.prepare("DELETE FROM meta WHERE key LIKE 'sources.blocked.%'").run();
      meteo.configure({ freeTier: limit });
      try {
        const s = await runMorning(server.ctx, { now: day(d) });
        const forecasts = meteo.log.filter((r) => r.path === "/v1/forecast");
        const first429 = forecasts.findIndex((r) => r.status === 429);
        expect(first429).toBeGreaterThanOrEqual(0);
        // Nothing after the 429: the minute's wait would outrun this run's 8 s budget, the hour's and the day's are never waited.
        expect(forecasts.slice(first429 + 1)).toEqual([]);
        expect(forecasts[first429]!.apikey).toBeNull();
        const f = provider(s, "Open-Meteo forecast");
        expect(f).toMatchObject({ rateLimited: 1, blocked: { window } });
        expect(s.composed).toBe(TOWNS.length);
        expect(s.withoutWeather).toBe(f.townsWithout);
        expect(s.withoutWeather).toBeGreaterThan(0);
        expect(formatSummary(s)).toContain(`1 × 429 (${window} limit until `);
        const line = logged.find((l) => /towns went without a forecast/.test(l.msg))!;
        expect(line.msg).toBe(`${f.townsWithout} of ${TOWNS.length} towns went without a forecast: Open-Meteo's ${window} limit was reached; the free tier allows 600 locations a minute, 5,000 an hour and 10,000 a day, for non-commercial use: set OPEN_METEO_API_KEY (a paid plan, with OPEN_METEO_URL and AIR_QUALITY_API_URL on its customer hosts) to lift it`);
        // The next run (a town just subscribed is due) sends nothing while the window is open.
        addSubscriber(server.ctx.db, extra, `reader@${extra}.example.org`);
        const count = meteo.log.length;
        const again = await runMorning(server.ctx, { now: new Date(day(d).getTime() + 15 * 60_000) });
        expect(again.composed).toBe(1);
        expect(meteo.log.filter((r) => r.path === "/v1/forecast").length).toBe(forecasts.length);
        expect(meteo.log.length).toBe(count);
        expect(provider(again, "Open-Meteo forecast")).toMatchObject({ requests: 0, blocked: { window } });
        expect(formatSummary(again)).toContain(`held back by an earlier 429 (${window} limit until `);
      } finally {
        meteo.configure({ freeTier: undefined });
        meteo.log.length = 0;
        server.ctx.db.prepare("DELETE FROM meta WHERE key LIKE 'sources.blocked.%'").run();
        server.ctx.db.prepare("UPDATE subscribers SET status = 'unsubscribed' WHERE email = ?").run(`reader@${extra}.example.org`);
      }
    });
  }

  it("with OPEN_METEO_API_KEY, every request carries the key", async () => {
    const provider = createOpenMeteoProvider({ baseUrl: meteo.url, apiKey: "k-123" });
    const answers = await provider.forecastMany([{ latitude: 39.3, longitude: -114.9 }, { latitude: 39.5, longitude: -119.8 }], "America/Los_Angeles");
    expect(answers.map((a) => a?.today.latitude)).toEqual([39.3, 39.5]);
    await provider.forecast({ latitude: 39.3, longitude: -114.9, timezone: "America/Los_Angeles" });
    expect(meteo.log.slice(-2).map((r) => [r.locations, r.apikey])).toEqual([[2, "k-123"], [1, "k-123"]]);
  });
});

describe("national alerts matched in memory", () => {
  it("reach the towns of the zone, the county and the polygon they name, and no others", async () => {
    // Zones looked up outside the morning: Ely in the valley zone, McGill in the mountain zone; the rest unknown.
    src.setPointZones((lat, lon) => {
      const near = (slug: string) => Math.abs(place(slug).latitude - lat) < 0.001 && Math.abs(place(slug).longitude - lon) < 0.001;
      if (near("ely-nevada")) return { forecastZone: "NVZ036", fireZone: "NVZ467", county: "NVC033" };
      if (near("mcgill-nevada")) return { forecastZone: "NVZ037", county: "NVC033" };
      return null;
    });
    const zones = await lookupTownZones(server.ctx, { limit: 100 });
    expect(zones).toEqual({ asked: TOWNS.length, found: 2, none: TOWNS.length - 2, failed: 0 });
    expect(await lookupTownZones(server.ctx, { limit: 100 })).toMatchObject({ asked: 0 }); // once per town
    const expires = "2026-11-27T16:00:00-08:00";
    src.setAlerts([
      nwsAlert({ event: "Winter Storm Warning", severity: "Severe", expires, ugc: ["NVZ037"], same: ["032033"], areaDesc: "White Pine County Mountains" }),
      nwsAlert({ event: "Wind Advisory", severity: "Moderate", expires, ugc: ["NVC031"], same: ["032031"], areaDesc: "Washoe" }),
      nwsAlert({ event: "Flash Flood Warning", severity: "Severe", expires, ugc: ["NVC033"], same: ["032033"], areaDesc: "White Pine, NV",
        polygon: [[-114.95, 39.2], [-114.8, 39.2], [-114.8, 39.32], [-114.95, 39.32], [-114.95, 39.2]] }),
      nwsAlert({ event: "Exercise Warning", status: "Exercise", expires, ugc: ["NVC033"], same: ["032033"] }),
    ]);
    const before = src.requests.length;
    const s = await runMorning(server.ctx, { now: day(26) });
    expect(s.composed).toBe(TOWNS.length);
    expect(src.requests.slice(before).filter((r) => r.path === "/alerts/active")).toHaveLength(1);
    const events = (slug: string) => ["Winter Storm Warning", "Wind Advisory", "Flash Flood Warning", "Exercise Warning"].filter((e) => edition(slug, 26)!.markdown.includes(e));
    expect(events("ely-nevada")).toEqual(["Flash Flood Warning"]); // inside the polygon; not the mountain zone's warning
    expect(events("mcgill-nevada")).toEqual(["Winter Storm Warning"]); // its zone; outside the polygon
    expect(events("ruth-nevada")).toEqual(["Winter Storm Warning"]); // zone unknown yet: its county's SAME code (over-reach, never a miss)
    expect(events("reno-nevada")).toEqual(["Wind Advisory"]);
    expect(events("sparks-nevada")).toEqual(["Wind Advisory"]);
    for (const slug of ["mesquite-nevada", "gardnerville-nevada", ...OTHERS]) expect(events(slug), slug).toEqual([]);

    // Later, nothing changed: a town subscribed since makes the run ask again, conditionally; 304, the same alerts.
    addSubscriber(server.ctx.db, "pioche-nevada", "reader@pioche.example.org");
    try {
      const later = await runMorning(server.ctx, { now: new Date(day(26).getTime() + 3_600_000) });
      expect(later.composed).toBe(1);
      const last = src.requests.filter((r) => r.path === "/alerts/active").at(-1)!;
      expect(last.headers["if-none-match"]).toMatch(/^"alerts-\d+"$/);
      expect(provider(later, "NWS alerts")).toMatchObject({ requests: 1, notModified: 1, townsServed: 1 });
      expect(events("pioche-nevada")).toEqual([]); // Lincoln County: none of these
    } finally {
      server.ctx.db.prepare("UPDATE subscribers SET status = 'unsubscribed' WHERE email = ?").run("reader@pioche.example.org");
    }
    src.setAlerts([]);
  });
});

describe("a provider down or hung", () => {
  it("down: every edition goes out, the circuit opens after 3 failures, the summary says so", async () => {
    meteo.setMode("error");
    try {
      const s = await runMorning(server.ctx, { now: day(27) });
      expect(s).toMatchObject({ composed: TOWNS.length, failed: 0, withoutWeather: TOWNS.length });
      // One request per timezone was due; the circuit opened after the third failure, the rest were never sent.
      expect(provider(s, "Open-Meteo forecast")).toMatchObject({ requests: 3, failures: 3, circuitOpen: true, skipped: timezones().size - 3, townsWithout: TOWNS.length });
      expect(formatSummary(s)).toContain("Open-Meteo forecast: 3 requests, ");
      expect(formatSummary(s)).toMatch(/3 failed, circuit open, 0 towns served, 15 without/);
      expect(logged.filter((l) => /weather unavailable/.test(l.msg))).toHaveLength(5); // a few by name, not 15 lines
      expect(logged.some((l) => l.msg === "15 of 15 towns went without a forecast: Open-Meteo kept failing (circuit opened)")).toBe(true);
    } finally {
      meteo.setMode("ok");
    }
  });

  it("hung: NWS and Open-Meteo never answer; the morning ends within their time limits and every edition goes out", async () => {
    meteo.configure({ mode: "slow", delayMs: 60_000 });
    src.setMode("/alerts/active", "slow");
    try {
      const started = performance.now();
      const s = await runMorning(server.ctx, { now: day(28) });
      const ms = performance.now() - started;
      expect(s).toMatchObject({ composed: TOWNS.length, failed: 0, withoutWeather: TOWNS.length });
      expect(provider(s, "Open-Meteo forecast")).toMatchObject({ requests: 3, failures: 3, circuitOpen: true });
      expect(provider(s, "NWS alerts")).toMatchObject({ requests: 1, failures: 1, townsWithout: TOWNS.length });
      // Three 2 s timeouts in a row (one request at a time here), not 60 s.
      expect(ms).toBeLessThan(15_000);
      expect(edition("ely-nevada", 28)!.markdown).toContain("The forecast was not available this morning.");
    } finally {
      meteo.configure({ mode: "ok" });
      src.setMode("/alerts/active", "ok");
    }
  });
});
