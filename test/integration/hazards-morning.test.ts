import { untracked } from "../helpers/click-links.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatherRunHazards } from "../../src/services/weather/hazards.ts";
import { PAUSE_BASE_MS } from "../../src/services/sources/source-guard.ts";
import { formatSummary } from "../../src/services/morning/summary.ts";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { findEdition } from "../../src/store/morning/editions.ts";
import { addSubscriber, geoidOf } from "../helpers/seed.ts";
import { startHazardsServer, type HazardsServer } from "../helpers/hazards-server.ts";
import { startOpenMeteoServer, type OpenMeteoServer } from "../helpers/open-meteo-server.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// The hazards every town shares, through the real morning against stand-ins of USGS and OpenFEMA:
// one request per provider per run however many towns, a quake felt on the coast and not inland,
// tides at the coastal town and none inland (computed, no request), a declaration for one county
// told once, a high UV from the forecast, validators sent back (304), and mornings that still go out
// with a provider down, one hung, and one that asked to be left alone (Retry-After).

const day = (n: number, hour = 15) => new Date(Date.UTC(2026, 10, 25 + n, hour)); // 7:00 AM in California on Nov 26 + n-1
const HMB = "half-moon-bay-california"; // San Mateo County, on the coast
const FRESNO = "fresno-california"; // Fresno County, inland
const PACIFICA = "pacifica-california"; // San Mateo County too

let hz: HazardsServer;
let meteo: OpenMeteoServer;
let server: TestServer;

const edition = (slug: string, date: string) => findEdition(server.ctx.db, geoidOf(server.ctx.db, slug), date)!.markdown;

beforeAll(async () => {
  hz = await startHazardsServer();
  // The recorded forecast with a UV index of 8.2 today (Open-Meteo's `uv_index_max`).
  meteo = await startOpenMeteoServer({
    fixture: "forecast-st-louis", today: "2026-11-26",
    transform: (b) => ({ ...b, daily_units: { ...(b.daily_units as object), uv_index_max: "" }, daily: { ...b.daily, uv_index_max: [8.2, 3, 3, 3, 3, 3, 3] } }),
  });
  hz.setQuakes([
    // 22 km from Half Moon Bay, 250 km from Fresno; reported felt by 212 people.
    { id: "nc75090001", mag: 4.1, place: "5 km NW of Pacifica, CA", time: Date.parse("2026-11-26T11:41:00Z"), latitude: 37.65, longitude: -122.52, felt: 212 },
    // Felt nowhere near either town.
    { id: "ak0260001", mag: 3.0, place: "60 km SSW of Cantwell, Alaska", time: Date.parse("2026-11-26T09:00:00Z"), latitude: 62.9, longitude: -149.3 },
    { id: "uu0260002", mag: 2.6, place: "Bingham Canyon Mine, UT", time: Date.parse("2026-11-26T10:00:00Z"), latitude: 40.52, longitude: -112.15, type: "quarry blast" },
  ]);
  hz.setDeclarations([{
    disasterNumber: 4901, state: "CA", declarationType: "DR", declarationDate: "2026-11-25T00:00:00.000Z", incidentType: "Severe Storm",
    declarationTitle: "SEVERE WINTER STORMS, FLOODING, AND MUDSLIDES", fipsStateCode: "06", fipsCountyCode: "081", designatedArea: "San Mateo (County)",
  }, {
    disasterNumber: 4890, state: "CA", declarationType: "DR", declarationDate: "2026-10-01T00:00:00.000Z", incidentType: "Fire",
    declarationTitle: "WILDFIRES", fipsStateCode: "06", fipsCountyCode: "019", designatedArea: "Fresno (County)", // long past: not asked for
  }]);
  server = await startTestServer({
    NOW: day(1).toISOString(), MAIL_SENDER: "off", OPEN_METEO_URL: meteo.url,
    USGS_EARTHQUAKES_URL: hz.url, OPENFEMA_API_URL: `${hz.url}/api/open`, HAZARDS_TIMEOUT_MS: "800", HAZARDS_BUDGET_MS: "30000",
  });
  for (const slug of [HMB, FRESNO]) addSubscriber(server.ctx.db, slug, `reader@${slug}.example.org`);
});
afterAll(async () => {
  await server?.stop();
  await meteo?.close();
  await hz?.close();
});

describe("hazards every town shares, a morning at a time", () => {
  it("morning 1: one USGS and one OpenFEMA request for both towns; the coast gets its quake, declaration, UV and tides, inland only the UV", { timeout: 120_000 }, async () => { // the first publish builds the whole site
    const s = await runMorning(server.ctx, { now: day(1) });
    expect([s.composed, s.failed, s.withoutWeather]).toEqual([2, 0, 0]);
    expect([hz.callsTo("usgs"), hz.callsTo("openfema")]).toEqual([1, 1]);
    const fema = hz.requests.find((r) => r.path.endsWith("DisasterDeclarationsSummaries"))!;
    expect(fema.query.get("$filter")).toBe("declarationDate ge '2026-11-19T00:00:00.000Z'");
    expect(String(fema.headers["user-agent"])).toMatch(/^citydaily \(/);

    const coast = edition(HMB, "2026-11-26");
    const block = coast.slice(coast.indexOf("## Hazards and tides today"), coast.indexOf("## Weather"));
    expect(block).toContain("- **Earthquake:** A magnitude 4.1 earthquake 5 km NW of Pacifica, CA at 3:41 AM, about 13 mi from town: 212 people told USGS they felt it. [USGS event page](https://earthquake.usgs.gov/earthquakes/eventpage/nc75090001)");
    expect(block).toContain("- **Disaster declaration:** A federal major disaster declaration for San Mateo County (severe winter storms, flooding, and mudslides), declared Nov 25. [FEMA's page](https://www.fema.gov/disaster/4901)");
    expect(block).toContain("- **UV index 8, very high:** Minimize sun between 10 AM and 4 PM");
    expect(block).toMatch(/- \*\*Tides:\*\* (High|Low) tide \d{1,2}:\d\d\u00a0[AP]M \(−?\d+\.\d\u00a0ft\), (high|low) .* Predicted for the NOAA tide station at Pillar Point Harbor, \d mi away; heights above mean lower low water, not for navigation\./);
    expect(block).not.toMatch(/Alaska|Bingham|Cantwell/);
    expect(coast).toContain("Earthquakes: [U.S. Geological Survey](https://earthquake.usgs.gov/).");
    expect(coast).toContain("Tides: NOAA harmonics, predicted with [Neaps](https://github.com/openwatersio/neaps)");

    const inland = edition(FRESNO, "2026-11-26");
    expect(inland).toContain("## Hazards today\n\n- **UV index 8, very high:**");
    expect(inland).not.toMatch(/Tides|Earthquake|earthquake|Disaster declaration|FEMA|Neaps/);

    expect(s.hazards).toMatchObject({
      usgs: { requests: 1, notModified: 0, failures: 0, skipped: 0, townsServed: 1 },
      openfema: { requests: 1, notModified: 0, failures: 0, skipped: 0, townsServed: 1 },
      tides: { requests: 0, townsServed: 1 },
      uv: { townsServed: 2 },
    });
    expect(formatSummary(s)).toContain("; hazards: USGS 1 request (0 unchanged, 0 failed), 1 town; OpenFEMA 1 request (0 unchanged, 0 failed), 1 town; tides 1 town (no request); UV 2 towns; ");
  });

  it("the same facts on the web edition, its markdown twin and /api/archive", async () => {
    const page = await (await server.get(`/${HMB}/2026-11-26`)).text();
    expect(page).toContain("Hazards and tides today");
    expect(untracked(page)).toContain('<a href="https://www.fema.gov/disaster/4901">FEMA\'s page</a>');
    const twin = await (await server.get(`/${HMB}/2026-11-26.md`)).text();
    expect(twin).toContain("- **Earthquake:** A magnitude 4.1 earthquake");
    const archive = await (await server.get(`/api/archive/${HMB}/2026-11-26`)).json() as { markdown?: string; html?: string };
    expect(JSON.stringify(archive)).toContain("San Mateo County (severe winter storms, flooding, and mudslides)");
  });

  it("/api/weather carries the weather-like facts: today's UV index everywhere, tides only on the coast", async () => {
    const coast = await (await server.get(`/api/weather/${HMB}`)).json() as Record<string, any>;
    expect(coast.uvIndexMax).toBe(8.2);
    expect(coast.tides).toMatchObject({ station: { id: "noaa/9414131", name: "Pillar Point Harbor" }, datum: "MLLW", units: "feet" });
    expect(coast.tides.extremes.map((e: { type: string }) => e.type)).toEqual(["high", "low", "high", "low"]);
    expect(coast.tides.extremes[0].time).toMatch(/^2026-11-26T\d\d:\d\d:00\.000Z$/);
    // The same times as the edition's tide line, in the town's words.
    const first = new Date(coast.tides.extremes[0].time).toLocaleTimeString("en-US", { timeZone: "America/Los_Angeles", hour: "numeric", minute: "2-digit" });
    expect(edition(HMB, "2026-11-26")).toContain(`High tide ${first.replace(/\s/, "\u00a0")}`);
    const inland = await (await server.get(`/api/weather/${FRESNO}`)).json() as Record<string, unknown>;
    expect(inland.uvIndexMax).toBe(8.2);
    expect("tides" in inland).toBe(false);
  });

  it("morning 2: an unchanged feed costs a 304; yesterday's quake and declaration are not news again; the tides are today's", async () => {
    const before = hz.requests.length;
    const s = await runMorning(server.ctx, { now: day(2) });
    expect([s.composed, s.failed]).toEqual([2, 0]);
    const asked = hz.requests.slice(before);
    expect(asked.map((r) => r.path.split("/").at(-1))).toEqual(expect.arrayContaining(["2.5_day.geojson", "DisasterDeclarationsSummaries"]));
    expect(asked).toHaveLength(2);
    expect(asked.find((r) => r.path.endsWith(".geojson"))!.headers["if-none-match"]).toMatch(/^"[0-9a-f]{16}"$/);
    // OpenFEMA's query moved on a day (its week starts a day later), so its answer is new, though nothing in it is news.
    expect(s.hazards).toMatchObject({ usgs: { requests: 1, notModified: 1, townsServed: 0 }, openfema: { requests: 1, notModified: 0, failures: 0, townsServed: 0 }, tides: { townsServed: 1 } });

    const coast = edition(HMB, "2026-11-27");
    expect(coast).not.toMatch(/Earthquake|Disaster declaration/);
    expect(coast).toMatch(/## Tides today\n\n(High|Low) tide /); // Friday's UV index is 3 in the stand-in's forecast: nothing to say
    // Tides move later by about 50 minutes a day: not yesterday's times.
    const tides = (md: string) => /((?:High|Low) tide .*?)\. Predicted/.exec(md)![1];
    expect(tides(coast)).not.toBe(tides(edition(HMB, "2026-11-26")));
  });

  it("morning 3: USGS down (asking to wait an hour) and OpenFEMA hung: both editions still go out, without those lines", async () => {
    hz.setQuakes([{ id: "nc75090099", mag: 4.5, place: "3 km S of Half Moon Bay, CA", time: Date.parse("2026-11-28T13:00:00Z"), latitude: 37.44, longitude: -122.43, felt: 50 }]);
    hz.setMode("usgs", "error", { retryAfter: "3600" });
    hz.setMode("openfema", "slow");
    const started = Date.now();
    const s = await runMorning(server.ctx, { now: day(3) });
    expect([s.composed, s.failed]).toEqual([2, 0]);
    expect(Date.now() - started).toBeLessThan(10_000); // the hung provider was cut at its time limit, not waited for
    expect(s.hazards).toMatchObject({ usgs: { requests: 1, failures: 1 }, openfema: { requests: 1, failures: 1 }, tides: { townsServed: 1 } });
    const coast = edition(HMB, "2026-11-28");
    expect(coast).toMatch(/## Tides today\n\n(High|Low) tide /);
    expect(coast).not.toMatch(/Earthquake|Disaster declaration|USGS|FEMA/);
  });

  it("later that morning, a new town: USGS is left alone until its Retry-After is over, OpenFEMA is asked again", async () => {
    addSubscriber(server.ctx.db, PACIFICA, "reader@pacifica.example.org");
    hz.setMode("openfema", "ok");
    const usgsBefore = hz.callsTo("usgs");
    const s = await runMorning(server.ctx, { now: new Date(Date.UTC(2026, 10, 28, 15, 45)) }); // 7:45 AM, the next scheduled run
    expect([s.due, s.composed]).toEqual([1, 1]);
    expect(hz.callsTo("usgs")).toBe(usgsBefore);
    expect(s.hazards).toMatchObject({ usgs: { requests: 0, skipped: 1 }, openfema: { requests: 1, failures: 0 } });
    expect(formatSummary(s)).toContain("USGS 0 requests (0 unchanged, 0 failed, skipped: breaker open), 0 towns");
    // Pacifica is told the San Mateo County declaration: new to its readers, though Half Moon Bay's were told days ago.
    expect(edition(PACIFICA, "2026-11-28")).toContain("- **Disaster declaration:** A federal major disaster declaration for San Mateo County");
  });

  it("morning 4: USGS is back and a quake felt in town is news", async () => {
    hz.setMode("usgs", "ok");
    hz.setQuakes([{ id: "nc75090100", mag: 3.4, place: "3 km S of Half Moon Bay, CA", time: Date.parse("2026-11-29T13:00:00Z"), latitude: 37.44, longitude: -122.43 }]);
    const s = await runMorning(server.ctx, { now: day(4) });
    expect(s.hazards).toMatchObject({ usgs: { requests: 1, failures: 0, townsServed: 2 } });
    expect(edition(HMB, "2026-11-29")).toContain("- **Earthquake:** A magnitude 3.4 earthquake 3 km S of Half Moon Bay, CA at 5:00 AM, close to town: likely felt here.");
    expect(edition(FRESNO, "2026-11-29")).not.toContain("Earthquake");
  });
});

describe("the circuit breaker", () => {
  it("leaves a provider alone after 3 failed runs, tries it again when the pause is over, and serves its last good answer meanwhile", async () => {
    const t0 = Date.parse("2026-11-29T16:00:00Z");
    const at = (minutes: number) => ({ now: new Date(t0 + minutes * 60_000) });
    const calls = () => hz.callsTo("openfema");
    // A good answer first: the San Mateo declaration is in it.
    hz.setMode("openfema", "ok");
    expect((await gatherRunHazards(server.ctx, [], at(0))).run.declarations?.map((d) => d.disasterNumber)).toEqual([4901]);
    hz.setMode("openfema", "error"); // 503 without Retry-After
    for (const m of [15, 30, 45]) {
      const before = calls();
      const { run, summary } = await gatherRunHazards(server.ctx, [], at(m));
      expect([calls() - before, summary.openfema.failures, summary.openfema.skipped], `run at +${m} min`).toEqual([1, 1, 0]);
      // The last good answer (within 30 h) still serves the editions.
      expect(run.declarations?.map((d) => d.disasterNumber)).toEqual([4901]);
    }
    // Open after the third failure: 15 minutes without a request.
    const before = calls();
    const skipped = await gatherRunHazards(server.ctx, [], at(45 + PAUSE_BASE_MS / 60_000 - 1));
    expect([calls() - before, skipped.summary.openfema.skipped]).toEqual([0, 1]);
    expect(skipped.run.declarations?.map((d) => d.disasterNumber)).toEqual([4901]);
    // Then one trial; it fails, and the pause doubles.
    expect((await gatherRunHazards(server.ctx, [], at(61))).summary.openfema).toMatchObject({ requests: 1, failures: 1 });
    expect((await gatherRunHazards(server.ctx, [], at(61 + 29))).summary.openfema).toMatchObject({ requests: 0, skipped: 1 });
    // Back: the next trial closes the breaker.
    hz.setMode("openfema", "ok");
    expect((await gatherRunHazards(server.ctx, [], at(61 + 31))).summary.openfema).toMatchObject({ requests: 1, failures: 0, skipped: 0 });
    expect((await gatherRunHazards(server.ctx, [], at(61 + 32))).summary.openfema).toMatchObject({ requests: 1, skipped: 0 });
  });
});
