import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WEATHER_CACHE } from "../../src/contract/operations/weather.ts";
import { Problem } from "../../src/contract/problems.ts";
import { WeatherResponse } from "../../src/contract/resources.ts";
import { describeWeatherCode, UNKNOWN_CONDITION, WMO_CONDITIONS } from "../../src/core/weather/wmo.ts";
import { createOpenMeteoProvider } from "../../src/integrations/weather/open-meteo.ts";
import type { WeatherSnapshot } from "../../src/core/weather/snapshot.ts";
import { insertEdition } from "../../src/store/morning/editions.ts";
import { loadFixture, startOpenMeteoServer, type OpenMeteoServer } from "../helpers/open-meteo-server.ts";
import { addSubscriber, geoidOf } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// 09:00 in St. Louis, 08:00 in Denver: every city below is on 2026-11-22, before or after its edition.
const NOW = "2026-11-22T15:00:00.000Z";
const TIMEOUT_MS = 1500;

let meteo: OpenMeteoServer;
let server: TestServer;

const CITIES = [
  "st-louis-missouri", "denver-colorado", "kansas-city-missouri", "kansas-city-kansas", "chicago-illinois",
  "omaha-nebraska", "tulsa-oklahoma", "wichita-kansas", "des-moines-iowa",
];

beforeAll(async () => {
  meteo = await startOpenMeteoServer();
  // No scheduled morning run: it would publish editions (with snapshots) for these cities behind the tests' backs.
  server = await startTestServer({ OPEN_METEO_URL: meteo.url, WEATHER_TIMEOUT_MS: String(TIMEOUT_MS), NOW, MORNING_SCHEDULE: "off" });
  for (const slug of CITIES) addSubscriber(server.ctx.db, slug, `reader@${slug}.example.org`);
});
afterAll(async () => {
  await server?.stop();
  await meteo?.close();
});

async function weatherOf(slug: string, init?: RequestInit) {
  const res = await server.get(`/api/weather/${slug}`, init);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  return { res, body: WeatherResponse.strict().parse(await res.json()) };
}

async function expectProblem(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  expect(res.headers.get("api-version")).toBe("v1");
  const problem = Problem.parse(await res.json());
  expect(problem.code).toBe(code);
  expect(problem.status).toBe(status);
  expect(problem.instance).toBe(new URL(res.url).pathname);
  return problem;
}

function snapshotFor(slug: string, today: WeatherSnapshot["today"]): WeatherSnapshot {
  return { today, daily: [{ date: "2026-11-22", high: today.high, low: today.low, code: today.code, precipitationChance: today.precipitationChance ?? null }] };
}

function publish(slug: string, date: string, weather?: WeatherSnapshot) {
  insertEdition(server.ctx.db, {
    placeGeoid: geoidOf(server.ctx.db, slug), date, subject: `Morning in ${slug}`, markdown: "# Morning\n", html: "<h1>Morning</h1>",
    weather, publishedAt: `${date}T12:00:00.000Z`,
  });
}

describe("GET /api/weather/{slug}: live forecast", () => {
  it("answers with Open-Meteo's forecast for the city, in °F and mph, asking for exactly that", async () => {
    const before = meteo.calls;
    const { res, body } = await weatherOf("st-louis-missouri");
    const recorded = loadFixture("forecast-st-louis");
    expect(body).toEqual({
      high: recorded.daily.temperature_2m_max[0], // 52.7
      low: recorded.daily.temperature_2m_min[0], // 36.1
      current: 41.3,
      code: 3,
      condition: "Overcast",
      emoji: "☁️",
      precipitationChance: 68,
      windSpeed: 8.9,
      uvIndexMax: 2, // today's highest UV index: low, nothing said in an edition
      latitude: 38.635699,
      longitude: -90.244582,
      timezone: "America/Chicago",
      asOf: NOW,
    });
    expect(res.headers.get("cache-control")).toBe(WEATHER_CACHE.live);
    expect(res.headers.get("etag")).toMatch(/^"[^"]+"$/);
    expect(meteo.calls).toBe(before + 1);

    const q = Object.fromEntries(meteo.requests.at(-1)!);
    expect(q).toEqual({
      latitude: "38.635699", longitude: "-90.244582", timezone: "America/Chicago",
      current: "temperature_2m,weather_code,wind_speed_10m",
      daily: "weather_code,temperature_2m_max,temperature_2m_min,precipitation_probability_max,sunrise,sunset,uv_index_max",
      temperature_unit: "fahrenheit", wind_speed_unit: "mph", forecast_days: "7",
    });
  });

  it("answers the same at /api/v1, and 304 for a matching If-None-Match", async () => {
    const { res, body } = await weatherOf("st-louis-missouri");
    const v1 = await server.get("/api/v1/weather/st-louis-missouri");
    expect(await v1.json()).toEqual(body);
    const again = await server.get("/api/weather/st-louis-missouri", { headers: { "If-None-Match": res.headers.get("etag")! } });
    expect(again.status).toBe(304);
  });
});

describe("GET /api/weather/{slug}: cache", () => {
  it("makes one upstream call for a burst of concurrent requests, then serves from cache for 15 minutes", async () => {
    const before = meteo.calls;
    const burst = await Promise.all(Array.from({ length: 25 }, () => server.get("/api/weather/denver-colorado")));
    expect(burst.map((r) => r.status)).toEqual(Array(25).fill(200));
    const bodies = await Promise.all(burst.map((r) => r.json()));
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    expect(bodies[0]).toMatchObject({ code: 73, condition: "Snow", current: 24.6, high: 29.8, low: 18.3, timezone: "America/Denver" });
    expect(meteo.calls).toBe(before + 1);

    const realNow = server.ctx.config.now;
    try {
      server.ctx.config.now = () => new Date(Date.parse(NOW) + 14 * 60_000);
      await weatherOf("denver-colorado");
      expect(meteo.calls).toBe(before + 1);

      server.ctx.config.now = () => new Date(Date.parse(NOW) + 16 * 60_000);
      const { body } = await weatherOf("denver-colorado");
      expect(meteo.calls).toBe(before + 2);
      expect(body.asOf).toBe("2026-11-22T15:16:00.000Z");
    } finally {
      server.ctx.config.now = realNow;
    }
  });

  it("keeps one entry per city", async () => {
    const before = meteo.calls;
    await weatherOf("kansas-city-missouri");
    await weatherOf("kansas-city-kansas");
    await weatherOf("kansas-city-missouri");
    expect(meteo.calls).toBe(before + 2);
  });
});

describe("GET /api/weather/{slug}: snapshot of today's edition", () => {
  const stored = {
    high: 61, low: 44, current: 50, code: 95, condition: "Thunderstorm", emoji: "⛈️", precipitationChance: 90, windSpeed: 17,
    latitude: 41.256537, longitude: -95.934503, timezone: "America/Chicago", asOf: "2026-11-22T12:00:03.000Z",
  };

  it("serves the snapshot stored with today's edition without calling Open-Meteo", async () => {
    publish("omaha-nebraska", "2026-11-22", snapshotFor("omaha-nebraska", stored));
    const before = meteo.calls;
    const { res, body } = await weatherOf("omaha-nebraska");
    expect(body).toEqual(stored);
    expect(res.headers.get("cache-control")).toBe(WEATHER_CACHE.snapshot);
    expect(meteo.calls).toBe(before);
  });

  it("serves the snapshot even while Open-Meteo is down", async () => {
    meteo.setMode("error");
    try {
      expect((await weatherOf("omaha-nebraska")).body).toEqual(stored);
    } finally {
      meteo.setMode("ok");
    }
  });

  it("goes live when only an earlier day's edition has a snapshot", async () => {
    publish("tulsa-oklahoma", "2026-11-21", snapshotFor("tulsa-oklahoma", { ...stored, high: 70 }));
    const before = meteo.calls;
    const { res, body } = await weatherOf("tulsa-oklahoma");
    expect(body.high).not.toBe(70);
    expect(body.asOf).toBe(NOW);
    expect(res.headers.get("cache-control")).toBe(WEATHER_CACHE.live);
    expect(meteo.calls).toBe(before + 1);
  });

  it("goes live when today's edition was published without a snapshot", async () => {
    publish("wichita-kansas", "2026-11-22");
    const before = meteo.calls;
    const { body } = await weatherOf("wichita-kansas");
    expect(body.asOf).toBe(NOW);
    expect(meteo.calls).toBe(before + 1);
  });

  it("uses the city's own date: an edition dated tomorrow (UTC) is not today's yet", async () => {
    // 15:00 UTC is still 2026-11-22 in Chicago; an edition for 2026-11-23 must not be served.
    publish("des-moines-iowa", "2026-11-23", snapshotFor("des-moines-iowa", { ...stored, high: 12 }));
    const { body } = await weatherOf("des-moines-iowa");
    expect(body.high).not.toBe(12);
  });
});

describe("GET /api/weather/{slug}: upstream failures", () => {
  // Failures are never cached, so one city walks through them all and then recovers.
  const slug = "chicago-illinois";

  it("answers 404 weather_unavailable when Open-Meteo is slow, within the timeout, with one call for a burst", async () => {
    meteo.setMode("slow");
    try {
      const before = meteo.calls;
      const burst = await Promise.all(Array.from({ length: 5 }, () => server.get(`/api/weather/${slug}`)));
      for (const res of burst) {
        const problem = await expectProblem(res, 404, "weather_unavailable");
        expect(problem.detail).toContain("Chicago, Illinois");
      }
      expect(meteo.calls).toBe(before + 1);
    } finally {
      meteo.setMode("ok");
    }
  });

  it.each([
    ["stall", "headers arrive but the body never finishes"],
    ["error", "500"],
    ["bad-request", "400"],
    ["truncated", "a body that is not JSON"],
  ] as const)("answers 404 weather_unavailable when Open-Meteo sends %s (%s)", async (mode, _what) => {
    meteo.setMode(mode);
    try {
      await expectProblem(await server.get(`/api/weather/${slug}`), 404, "weather_unavailable");
    } finally {
      meteo.setMode("ok");
    }
  });

  it("answers 404 weather_unavailable rather than serve another unit as °F", async () => {
    meteo.configure({
      transform: (body) => ({ ...body, current_units: { ...(body.current_units as object), temperature_2m: "°C" } }),
    });
    try {
      await expectProblem(await server.get(`/api/weather/${slug}`), 404, "weather_unavailable");
    } finally {
      meteo.configure({ transform: undefined });
    }
  });

  it("recovers on the next request once Open-Meteo answers again", async () => {
    const before = meteo.calls;
    const { body } = await weatherOf(slug);
    expect(body.timezone).toBe("America/Chicago");
    expect(meteo.calls).toBe(before + 1);
  });
});

describe("GET /api/weather/{slug}: slugs", () => {
  it("is city_not_found for a real place with no newsletter, without calling Open-Meteo", async () => {
    const before = meteo.calls;
    await expectProblem(await server.get("/api/weather/boise-idaho"), 404, "city_not_found");
    await expectProblem(await server.get("/api/weather/atlantis-nevada"), 404, "city_not_found");
    expect(meteo.calls).toBe(before);
  });

  it("is invalid_slug for a malformed slug and missing_slug without one", async () => {
    await expectProblem(await server.get("/api/weather/St.%20Louis"), 400, "invalid_slug");
    await expectProblem(await server.get("/api/weather"), 400, "missing_slug");
  });

  it("answers 405 with Allow for a POST", async () => {
    const res = await server.post("/api/weather/st-louis-missouri", {});
    await expectProblem(res, 405, "method_not_allowed");
    expect(res.headers.get("allow")).toContain("GET");
  });
});

describe("OpenAPI", () => {
  it("documents the units, the snapshot-vs-live rule and the error codes", async () => {
    const doc = await (await server.get("/openapi.json")).json();
    const op = doc.paths["/api/weather/{slug}"].get;
    expect(op.description).toContain("°F");
    expect(op.description).toContain("mph");
    expect(op.description).toContain("percent");
    expect(op.description).toContain("snapshot");
    expect(op.responses["404"].description).toContain("weather_unavailable");
    expect(op.responses["404"].description).toContain("city_not_found");
    expect(op.responses["400"].description).toContain("invalid_slug");
  });
});

describe("Open-Meteo provider", () => {
  const location = { latitude: 38.635699, longitude: -90.244582, timezone: "America/Chicago" };

  it.each(Object.keys(WMO_CONDITIONS).map(Number))("maps weather code %i to its condition and emoji", async (code) => {
    meteo.configure({ weatherCode: code });
    try {
      const provider = createOpenMeteoProvider({ baseUrl: meteo.url, timeoutMs: TIMEOUT_MS });
      const { today, daily } = await provider.forecast(location);
      expect(today.code).toBe(code);
      expect({ condition: today.condition, emoji: today.emoji }).toEqual(describeWeatherCode(code));
      expect(today.condition).not.toBe(UNKNOWN_CONDITION.condition);
      expect(daily[0]!.code).toBe(code);
    } finally {
      meteo.configure({ weatherCode: undefined });
    }
  });

  it("describes a code Open-Meteo does not document with the fallback instead of failing", async () => {
    meteo.configure({ weatherCode: 42 });
    try {
      const { today } = await createOpenMeteoProvider({ baseUrl: meteo.url }).forecast(location);
      expect(today).toMatchObject({ code: 42, ...UNKNOWN_CONDITION });
    } finally {
      meteo.configure({ weatherCode: undefined });
    }
  });

  it("returns the week ahead, stopping at the first day the model has no values for", async () => {
    const provider = createOpenMeteoProvider({ baseUrl: meteo.url, now: () => new Date(NOW) });
    const { daily } = await provider.forecast({ latitude: 39.76185, longitude: -104.881105, timezone: "America/Denver" });
    expect(daily.map((d) => d.date)).toEqual(["2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26", "2026-11-27"]);
    // The UV index comes with the same call (the stand-in's recorded answers predate it and add 2 to 3).
    expect(daily[0]).toEqual({ date: "2026-11-22", high: 29.8, low: 18.3, code: 75, precipitationChance: 93, sunrise: "2026-11-22T06:51", sunset: "2026-11-22T16:39", uvIndexMax: 2 });
  });

  it("can be told to start the recorded week on another day (for pipeline tests)", async () => {
    meteo.configure({ today: "2027-01-05" });
    try {
      const { daily } = await createOpenMeteoProvider({ baseUrl: meteo.url }).forecast(location);
      expect(daily[0]).toMatchObject({ date: "2027-01-05", sunrise: "2027-01-05T06:51", sunset: "2027-01-05T16:42" });
      expect(daily.at(-1)!.date).toBe("2027-01-11");
    } finally {
      meteo.configure({ today: undefined });
    }
  });

  it("rejects with the reason when the timeout passes", async () => {
    meteo.setMode("slow");
    try {
      await expect(createOpenMeteoProvider({ baseUrl: meteo.url, timeoutMs: 200 }).forecast(location)).rejects.toMatchObject({ kind: "timeout" });
    } finally {
      meteo.setMode("ok");
    }
  });

  it("rejects with Open-Meteo's reason on a 400", async () => {
    meteo.setMode("bad-request");
    try {
      await expect(createOpenMeteoProvider({ baseUrl: meteo.url }).forecast(location)).rejects.toMatchObject({
        kind: "status", message: expect.stringContaining("Latitude must be in range"),
      });
    } finally {
      meteo.setMode("ok");
    }
  });

  it("rejects when nothing listens", async () => {
    await expect(createOpenMeteoProvider({ baseUrl: "http://127.0.0.1:9" }).forecast(location)).rejects.toMatchObject({ kind: "network" });
  });
});
