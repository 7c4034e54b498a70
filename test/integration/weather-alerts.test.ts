import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WEATHER_CACHE } from "../../src/contract/operations/weather.ts";
import { WeatherResponse } from "../../src/contract/resources.ts";
import { connectV2 } from "../helpers/mcp-clients.ts";
import { startOpenMeteoServer, type OpenMeteoServer } from "../helpers/open-meteo-server.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { nwsAlert, startTownSourcesServer, type TownSourcesServer } from "../helpers/town-sources-server.ts";

// /api/weather/{slug} lists the NWS alerts active for the city's point, live and briefly cached;
// OpenAPI and the MCP tool follow from the contract.

const NOW = "2026-11-24T15:00:00.000Z";
let src: TownSourcesServer;
let meteo: OpenMeteoServer;
let server: TestServer;

const warning = nwsAlert({
  event: "Winter Storm Warning", severity: "Severe", headline: "Winter Storm Warning until Wednesday 10 PM",
  description: "Heavy snow. Total accumulations of 8 to 14 inches.", instruction: "If you must travel, keep a flashlight, food and water in your vehicle.",
  onset: "2026-11-24T04:00:00-08:00", ends: "2026-11-25T22:00:00-08:00", expires: "2026-11-24T16:00:00-08:00",
});
const advisory = nwsAlert({ event: "Wind Advisory", severity: "Moderate", expires: "2026-11-24T07:04:00-08:00" }); // 15:04Z, 4 minutes after NOW
const expired = nwsAlert({ event: "Frost Advisory", severity: "Minor", expires: "2026-11-24T06:00:00-08:00" }); // 14:00Z, before NOW

beforeAll(async () => {
  src = await startTownSourcesServer();
  meteo = await startOpenMeteoServer({ today: "2026-11-24" });
  server = await startTestServer({ NOW, NWS_API_URL: src.url, OPEN_METEO_URL: meteo.url, SOURCES_TIMEOUT_MS: "500" });
  for (const slug of ["ely-nevada", "reno-nevada", "boise-idaho"]) addSubscriber(server.ctx.db, slug, `reader@${slug}.example.org`);
});
afterAll(async () => {
  await server?.stop();
  await meteo?.close();
  await src?.close();
});

describe("GET /api/weather/{slug}: alerts", () => {
  it("lists the active alerts for the city's point, most severe first, never an expired one, with a live forecast's caching", async () => {
    src.setAlerts([advisory, expired, warning]);
    const res = await server.get("/api/weather/ely-nevada");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe(WEATHER_CACHE.live);
    const body = WeatherResponse.strict().parse(await res.json());
    expect(body.alerts!.map((a) => a.event)).toEqual(["Winter Storm Warning", "Wind Advisory"]);
    expect(body.alerts![0]).toMatchObject({
      severity: "Severe", instruction: "If you must travel, keep a flashlight, food and water in your vehicle.",
      ends: "2026-11-25T22:00:00-08:00", senderName: "NWS Elko NV", url: "https://forecast.weather.gov/MapClick.php?lat=39.2649&lon=-114.8709",
    });
    expect(typeof body.high).toBe("number"); // the forecast is still there
    expect(src.requests.filter((r) => r.path === "/alerts/active").at(-1)!.query.get("point")).toBe("39.2649,-114.8709");
  });

  it("reuses the answer for a few minutes, and drops an alert the moment it expires", async () => {
    const calls = src.callsTo("/alerts/active");
    const realNow = server.ctx.config.now;
    try {
      server.ctx.config.now = () => new Date("2026-11-24T15:03:00Z");
      const again = WeatherResponse.parse(await (await server.get("/api/weather/ely-nevada")).json());
      expect(again.alerts!.map((a) => a.event)).toEqual(["Winter Storm Warning", "Wind Advisory"]);
      expect(src.callsTo("/alerts/active")).toBe(calls);
      // 07:04:30 PST: the advisory has expired; the cached list no longer shows it.
      server.ctx.config.now = () => new Date("2026-11-24T15:04:30Z");
      const body = WeatherResponse.parse(await (await server.get("/api/weather/ely-nevada")).json());
      expect(body.alerts!.map((a) => a.event)).toEqual(["Winter Storm Warning"]);
      expect(src.callsTo("/alerts/active")).toBe(calls);
      // 16:01 PST, past the warning's message expiry and the cache's minutes: asked again, nothing active.
      src.setAlerts([]);
      server.ctx.config.now = () => new Date("2026-11-25T00:01:00Z");
      const later = WeatherResponse.parse(await (await server.get("/api/weather/ely-nevada")).json());
      expect(later.alerts).toEqual([]);
      expect(src.callsTo("/alerts/active")).toBe(calls + 1);
    } finally {
      server.ctx.config.now = realNow;
    }
  });

  it("still answers the forecast, without `alerts`, when the NWS is down", async () => {
    src.setMode("/alerts/active", "error");
    const res = await server.get("/api/weather/reno-nevada");
    expect(res.status).toBe(200);
    const body = WeatherResponse.strict().parse(await res.json());
    expect(body.alerts).toBeUndefined();
    expect(typeof body.high).toBe("number");
    src.setMode("/alerts/active", "ok");
  });

  it("is described in OpenAPI and answered by the MCP tool", async () => {
    const doc = await (await server.get("/openapi.json")).json();
    const schema = doc.components.schemas.WeatherResponse;
    expect(schema.properties.alerts.type).toBe("array");
    expect(doc.components.schemas.WeatherAlert.required).toEqual(expect.arrayContaining(["event", "severity", "expires", "url"]));

    src.setAlerts([warning]);
    const c = await connectV2(`${server.url}/mcp`);
    try {
      const r = await c.client.callTool({ name: "get_weather", arguments: { slug: "boise-idaho" } });
      expect((r.structuredContent as { alerts: Array<{ event: string }> }).alerts.map((a) => a.event)).toEqual(["Winter Storm Warning"]);
    } finally {
      await c.close();
    }
  });
});
