import { describe, expect, it } from "vitest";
import { composeEdition } from "../../src/core/edition/compose.ts";
import { renderEditionHtml } from "../../src/core/edition/render-html.ts";
import type { EditionInputs } from "../../src/core/edition/edition-inputs.ts";
import {
  areaWords, declarationLine, distanceKm, feltIn, feltRadiusKm, hazardsForTown, NO_TOWN_HAZARDS, quakeLine, tideLine, uvCategory,
  type Declaration, type HazardPlace, type Quake, type RunHazards, type TideDay,
} from "../../src/core/hazards/town-hazards.ts";
import { NO_TOWN_SOURCES } from "../../src/core/sources/town-sources.ts";
import type { WeatherSnapshot } from "../../src/core/weather/snapshot.ts";
import { createNeapsTides } from "../../src/integrations/hazards/tides.ts";
import { parseUsgsFeed } from "../../src/integrations/hazards/usgs-earthquakes.ts";
import { openFemaUrl, parseDeclarations } from "../../src/integrations/hazards/openfema.ts";

// The hazards every town shares, matched to one town: the felt rule, the 24-hour window, counties,
// news told once, EPA's UV categories, tides from neaps, and the words the reader sees.

const AT = "2026-11-26T15:00:00.000Z"; // 7:00 AM in California
const h = (n: number) => Date.parse(AT) - n * 3_600_000;

// Half Moon Bay (San Mateo County, on the coast) and Fresno (Fresno County, inland), California.
const HALF_MOON_BAY: HazardPlace = { geoid: "0631708", latitude: 37.4636, longitude: -122.4286, timezone: "America/Los_Angeles", countyGeoid: "06081" };
const FRESNO: HazardPlace = { geoid: "0627000", latitude: 36.7378, longitude: -119.7871, timezone: "America/Los_Angeles", countyGeoid: "06019" };

const quake = (over: Partial<Quake>): Quake => ({
  id: "nc75012345", mag: 4.1, place: "5 km NW of Pacifica, CA", time: h(3), latitude: 37.65, longitude: -122.52, depthKm: 9,
  url: "https://earthquake.usgs.gov/earthquakes/eventpage/nc75012345", felt: null, alert: null, tsunami: false, ...over,
});

const declaration = (over: Partial<Declaration>): Declaration => ({
  disasterNumber: 4901, state: "CA", declarationType: "DR", declarationDate: "2026-11-25T00:00:00.000Z", incidentType: "Severe Storm",
  declarationTitle: "SEVERE WINTER STORMS, FLOODING, AND MUDSLIDES", fipsStateCode: "06", fipsCountyCode: "081", designatedArea: "San Mateo (County)", ...over,
});

const run = (over: Partial<RunHazards>): RunHazards => ({ at: AT, quakes: [], declarations: [], tides: new Map(), ...over });

describe("the felt rule", () => {
  it("grows with magnitude: about 19 km at M2.5, 80 km at M4, 510 km at M6", () => {
    expect(Math.round(feltRadiusKm(2.5))).toBe(19);
    expect(Math.round(feltRadiusKm(4))).toBe(78);
    expect(Math.round(feltRadiusKm(6))).toBe(513);
    expect(feltRadiusKm(0)).toBe(0);
    expect(feltRadiusKm(Number.NaN)).toBe(0);
  });

  it("says felt within the radius (by reports when USGS has any), and beyond it only on 10 or more reports within twice the radius", () => {
    expect(feltIn({ mag: 4, felt: null }, 70)).toBe("rule");
    expect(feltIn({ mag: 4, felt: 3 }, 70)).toBe("reports");
    expect(feltIn({ mag: 4, felt: 3 }, 120)).toBeNull();
    expect(feltIn({ mag: 4, felt: 40 }, 120)).toBe("reports");
    expect(feltIn({ mag: 4, felt: 400 }, 200)).toBeNull();
  });

  it("measures great-circle distance in km", () => {
    expect(Math.round(distanceKm(HALF_MOON_BAY, FRESNO))).toBe(248);
  });
});

describe("hazardsForTown", () => {
  it("gives a quake to the town it was felt in and not to one out of its reach", () => {
    const r = run({ quakes: [quake({})] });
    const coast = hazardsForTown(r, HALF_MOON_BAY, "2026-11-26");
    expect(coast.quakes.map((q) => [q.quake.id, Math.round(q.distanceKm), q.feltBy])).toEqual([["nc75012345", 22, "rule"]]);
    expect(hazardsForTown(r, FRESNO, "2026-11-26").quakes).toEqual([]);
  });

  it("keeps to the 24 hours before publication and to what the town was not told already", () => {
    const r = run({ quakes: [quake({ id: "old", time: h(25) }), quake({ id: "future", time: h(-1) }), quake({ id: "told" }), quake({ id: "new", mag: 4.5 })] });
    expect(hazardsForTown(r, HALF_MOON_BAY, "2026-11-26", new Set(["usgs:told"])).quakes.map((q) => q.quake.id)).toEqual(["new"]);
  });

  it("gives a declaration to towns of its county (or of a statewide one) within a week, once per disaster", () => {
    const r = run({ declarations: [
      declaration({ fipsCountyCode: "000", designatedArea: "Statewide" }), // the same disaster statewide: told as the county's
      declaration({}),
      declaration({ fipsCountyCode: "081", designatedArea: "San Mateo (County)" }), // the same disaster listed twice
      declaration({ disasterNumber: 3650, declarationType: "EM", fipsCountyCode: "000", designatedArea: "Statewide", declarationTitle: "WILDFIRES" }),
      declaration({ disasterNumber: 4800, declarationDate: "2026-11-10T00:00:00.000Z" }), // too old to be news
      declaration({ disasterNumber: 4902, fipsStateCode: "41", fipsCountyCode: "081", state: "OR" }), // county 081 of another state
      declaration({ disasterNumber: 4903, fipsCountyCode: "000", designatedArea: "Hoopa Valley Indian Reservation" }), // a tribal nation's row: not statewide
    ] });
    expect(hazardsForTown(r, HALF_MOON_BAY, "2026-11-26").declarations.map((d) => `${d.declarationType}-${d.disasterNumber}`)).toEqual(["DR-4901", "EM-3650"]);
    expect(hazardsForTown(r, HALF_MOON_BAY, "2026-11-26").declarations.map(areaWords)).toEqual(["San Mateo County", "all of CA"]);
    expect(hazardsForTown(r, FRESNO, "2026-11-26").declarations.map((d) => `${d.declarationType}-${d.disasterNumber}`)).toEqual(["DR-4901", "EM-3650"]);
    expect(hazardsForTown(r, HALF_MOON_BAY, "2026-11-27", new Set(["fema:DR-4901"])).declarations.map((d) => d.disasterNumber)).toEqual([3650]);
    expect(hazardsForTown(r, { ...FRESNO, countyGeoid: null }, "2026-11-26").declarations).toEqual([]);
  });

  it("gives nothing when a provider gave nothing this run", () => {
    expect(hazardsForTown(run({ quakes: null, declarations: null }), HALF_MOON_BAY, "2026-11-26")).toEqual(NO_TOWN_HAZARDS);
  });
});

describe("UV index (EPA categories)", () => {
  it("names the category and gives advice from high (6) up", () => {
    expect([2, 3, 5.4, 5.6, 7, 8, 10, 11, 13].map((i) => uvCategory(i).name)).toEqual(["low", "moderate", "moderate", "high", "high", "very high", "very high", "extreme", "extreme"]);
    expect(uvCategory(5).advice).toBeNull();
    expect(uvCategory(11).advice).toMatch(/burn in minutes/);
  });
});

describe("tides from neaps (no request)", () => {
  const tides = createNeapsTides();
  it("gives a coastal town its NOAA station's highs and lows of its local day, in order, in feet above MLLW", async () => {
    const t = await tides.day(HALF_MOON_BAY, "2026-11-26");
    expect(t).not.toBeNull();
    expect(t!.station).toMatchObject({ id: "noaa/9414131", name: "Pillar Point Harbor" });
    expect(t!.station.distanceKm).toBeLessThan(15);
    expect([t!.datum, t!.units]).toEqual(["MLLW", "feet"]);
    expect(t!.extremes.length).toBeGreaterThanOrEqual(3);
    const local = t!.extremes.map((e) => new Date(e.time).toLocaleString("sv-SE", { timeZone: "America/Los_Angeles" }).slice(0, 10));
    expect(new Set(local)).toEqual(new Set(["2026-11-26"]));
    expect(t!.extremes.map((e) => e.time)).toEqual([...t!.extremes.map((e) => e.time)].sort());
    // Highs and lows alternate.
    for (let i = 1; i < t!.extremes.length; i++) expect(t!.extremes[i]!.type).not.toBe(t!.extremes[i - 1]!.type);
    expect(t!.attribution).toContain("Neaps tide database");
  });

  it("gives an inland town none", async () => {
    expect(await tides.day(FRESNO, "2026-11-26")).toBeNull();
  });

  it("answers what was asked before a release, and starts again for a day asked after it", async () => {
    const asked = tides.day(HALF_MOON_BAY, "2026-11-26");
    tides.release(); // the worker ends once that answer is given
    const before = await asked;
    expect(before?.station.id).toBe("noaa/9414131");
    expect(await tides.day(HALF_MOON_BAY, "2026-11-26")).toEqual(before);
    tides.release();
  });
});

describe("the words", () => {
  const tide: TideDay = {
    station: { id: "noaa/9414131", name: "Pillar Point Harbor", distanceKm: 6.4 }, datum: "MLLW", units: "feet", attribution: "Neaps tide database (https://github.com/openwatersio/tide-database)",
    extremes: [
      { time: "2026-11-26T14:42:00.000Z", type: "high", height: 5.08 },
      { time: "2026-11-26T20:58:00.000Z", type: "low", height: -0.31 },
      { time: "2026-11-27T03:02:00.000Z", type: "high", height: 4.8 },
    ],
  };

  it("tells tides in the town's clock, with the station, the datum and no ISO time", () => {
    expect(tideLine(tide, "America/Los_Angeles")).toBe(
      "High tide 6:42 AM (5.1 ft), low 12:58 PM (−0.3 ft), high 7:02 PM (4.8 ft). Predicted for the NOAA tide station at Pillar Point Harbor, 4 mi away; heights above mean lower low water, not for navigation.",
    );
  });

  it("tells a quake with its local time, distance and how we know it was felt", () => {
    expect(quakeLine({ quake: quake({ felt: 212, time: Date.parse("2026-11-26T11:41:00Z") }), distanceKm: 21, feltBy: "reports" }, "America/Los_Angeles", "2026-11-26"))
      .toBe("A magnitude 4.1 earthquake 5 km NW of Pacifica, CA at 3:41 AM, about 13 mi from town: 212 people told USGS they felt it.");
    expect(quakeLine({ quake: quake({ time: Date.parse("2026-11-26T05:10:00Z"), alert: "yellow" }), distanceKm: 5, feltBy: "rule" }, "America/Los_Angeles", "2026-11-26"))
      .toBe("A magnitude 4.1 earthquake 5 km NW of Pacifica, CA yesterday at 9:10 PM, close to town: likely felt here; USGS expects some damage near the epicentre.");
  });

  it("tells a declaration without FEMA's capitals and codes", () => {
    expect(declarationLine(declaration({}))).toBe("A federal major disaster declaration for San Mateo County (severe winter storms, flooding, and mudslides), declared Nov 25.");
    expect(areaWords(declaration({ fipsCountyCode: "000", designatedArea: "Statewide" }))).toBe("all of CA");
  });
});

describe("the hazards block of an edition", () => {
  const weather = (uv: number | null): WeatherSnapshot => ({
    today: { high: 61, low: 48, current: 50, code: 1, condition: "Mainly clear", emoji: "", precipitationChance: 0, windSpeed: 5 },
    daily: [{ date: "2026-11-26", high: 61, low: 48, code: 1, precipitationChance: 0, uvIndexMax: uv }],
  });
  const base = (over: Partial<EditionInputs>): EditionInputs => ({
    place: { name: "Half Moon Bay", stateName: "California", slug: "half-moon-bay-california", timezone: "America/Los_Angeles" },
    date: "2026-11-26", baseUrl: "https://citydaily.example", at: AT, weather: weather(2.1),
    sun: { sunrise: "7:01 AM", sunset: "4:53 PM", daylightMinutes: 592, source: "suncalc" },
    holidays: { today: [], upcoming: [] }, censusFact: null, events: [], listings: [], sources: NO_TOWN_SOURCES, ...over,
  });

  it("says nothing on a quiet day inland", () => {
    const { markdown } = composeEdition(base({}));
    expect(markdown).not.toMatch(/Hazards|Tides|UV index|Earthquake|USGS|FEMA|Neaps/);
  });

  it("puts tides, a felt quake, a high UV and a new declaration right after the greeting, each with its source, and credits them", () => {
    const tides: TideDay = { station: { id: "noaa/9414131", name: "Pillar Point Harbor", distanceKm: 6.4 }, datum: "MLLW", units: "feet", attribution: "Neaps tide database (https://github.com/openwatersio/tide-database)", extremes: [{ time: "2026-11-26T14:42:00.000Z", type: "high", height: 5.08 }] };
    const { markdown } = composeEdition(base({
      weather: weather(8.4),
      sources: { ...NO_TOWN_SOURCES, hazards: { quakes: [{ quake: quake({ felt: 3 }), distanceKm: 21, feltBy: "reports" }], declarations: [declaration({})], tides } },
    }));
    const block = markdown.slice(markdown.indexOf("## Hazards and tides today"), markdown.indexOf("## Weather"));
    expect(block.split("\n").filter((l) => l.startsWith("- ")).map((l) => l.slice(0, 40))).toEqual([
      "- **Earthquake:** A magnitude 4.1 earthq",
      "- **Disaster declaration:** A federal ma",
      "- **UV index 8, very high:** Minimize su",
      "- **Tides:** High tide 6:42\u00a0AM (5.1\u00a0ft).",
    ]);
    expect(block).toContain("[USGS event page](https://earthquake.usgs.gov/earthquakes/eventpage/nc75012345)");
    expect(block).toContain("[FEMA's page](https://www.fema.gov/disaster/4901)");
    expect(block).toContain("(EPA advice)");
    expect(block).not.toMatch(/\d{4}-\d\d-\d\dT|DR-4901|noaa\//);
    expect(markdown.indexOf("## Hazards and tides today")).toBeLessThan(markdown.indexOf("## Weather"));
    const credits = markdown.trim().split("\n").at(-1)!;
    expect(credits).toContain("Earthquakes: [U.S. Geological Survey](https://earthquake.usgs.gov/).");
    expect(credits).toContain("Disaster declarations: [FEMA](https://www.fema.gov/about/openfema) (OpenFEMA).");
    expect(credits).toContain("Tides: NOAA harmonics, predicted with [Neaps](https://github.com/openwatersio/neaps); [Neaps tide database](https://github.com/openwatersio/tide-database).");
    const html = renderEditionHtml(markdown);
    expect(html).toContain('<a href="https://www.fema.gov/disaster/4901">FEMA\'s page</a>');
  });

  it("leads the subject with a quake felt in town, else a new declaration for the county", () => {
    const felt = { quake: quake({ felt: 3 }), distanceKm: 21, feltBy: "reports" as const };
    const both = composeEdition(base({ sources: { ...NO_TOWN_SOURCES, hazards: { quakes: [felt], declarations: [declaration({})], tides: null } } }));
    expect(both.lead).toBe("quake");
    expect(both.subject).toBe("Half Moon Bay, Nov 26: Magnitude 4.1 earthquake felt, 13 mi away · Mostly clear, high 61°F");
    // Its block already leads the edition, right after the greeting: no second "top story" of it.
    expect(both.markdown.indexOf("## Hazards today")).toBeLessThan(both.markdown.indexOf("## Weather"));
    expect(both.markdown.match(/magnitude 4\.1/gi)).toHaveLength(1);
    const close = composeEdition(base({ sources: { ...NO_TOWN_SOURCES, hazards: { quakes: [{ ...felt, distanceKm: 3 }], declarations: [], tides: null } } }));
    expect(close.subject).toMatch(/: Magnitude 4\.1 earthquake felt, close to town · /);
    // Felt by the rule alone (nobody reported it yet): the subject does not claim it was felt.
    const byRule = composeEdition(base({ sources: { ...NO_TOWN_SOURCES, hazards: { quakes: [{ quake: quake({}), distanceKm: 21, feltBy: "rule" }], declarations: [], tides: null } } }));
    expect(byRule.subject).toMatch(/: Magnitude 4\.1 earthquake, 13 mi away · /);
    const declared = composeEdition(base({ sources: { ...NO_TOWN_SOURCES, hazards: { quakes: [], declarations: [declaration({ declarationType: "EM" })], tides: null } } }));
    expect([declared.lead, declared.subject]).toEqual(["declaration", "Half Moon Bay, Nov 26: Federal emergency declaration for San Mateo County · Mostly clear, high 61°F"]);
    // Tides alone and a high UV are not news enough to lead.
    const tides: TideDay = { station: { id: "noaa/1", name: "Harbor", distanceKm: 0.4 }, datum: "MLLW", units: "feet", attribution: "Neaps tide database (https://github.com/openwatersio/tide-database)", extremes: [{ time: "2026-11-26T20:58:00.000Z", type: "low", height: 0.04 }] };
    expect(["quake", "declaration"]).not.toContain(composeEdition(base({ weather: weather(9), sources: { ...NO_TOWN_SOURCES, hazards: { ...NO_TOWN_HAZARDS, tides } } })).lead);
  });

  it("gives a quiet coastal day its tides alone under \"Tides today\", and leaves out a UV index under 6", () => {
    const tides: TideDay = { station: { id: "noaa/1", name: "Harbor", distanceKm: 0.4 }, datum: "MLLW", units: "feet", attribution: "Neaps tide database (https://github.com/openwatersio/tide-database)", extremes: [{ time: "2026-11-26T20:58:00.000Z", type: "low", height: 0.04 }] };
    const { markdown } = composeEdition(base({ weather: weather(5.4), sources: { ...NO_TOWN_SOURCES, hazards: { ...NO_TOWN_HAZARDS, tides } } }));
    expect(markdown).toContain("## Tides today\n\nLow tide 12:58\u00a0PM (0.0\u00a0ft). Predicted for the NOAA tide station at Harbor; heights above mean lower low water, not for navigation.\n");
    expect(markdown).not.toContain("UV index");
  });
});

describe("provider formats", () => {
  it("reads USGS's summary GeoJSON, leaving out quarry blasts and unreadable features", () => {
    const quakes = parseUsgsFeed({
      type: "FeatureCollection", metadata: { generated: 1, count: 3 },
      features: [
        { type: "Feature", id: "ci1", properties: { mag: 3.2, place: "10 km N of Town, CA", time: 1764160000000, url: "https://earthquake.usgs.gov/earthquakes/eventpage/ci1", felt: 5, cdi: 3.1, mmi: null, alert: null, tsunami: 0, type: "earthquake" }, geometry: { type: "Point", coordinates: [-117.5, 35.6, 7.2] } },
        { type: "Feature", id: "ci2", properties: { mag: 2.6, place: "Quarry", time: 1764160000000, type: "quarry blast" }, geometry: { type: "Point", coordinates: [-117, 34, 0] } },
        { type: "Feature", id: "bad", properties: { mag: "x" }, geometry: null },
      ],
    });
    expect(quakes).toEqual([{ id: "ci1", mag: 3.2, place: "10 km N of Town, CA", time: 1764160000000, latitude: 35.6, longitude: -117.5, depthKm: 7.2, url: "https://earthquake.usgs.gov/earthquakes/eventpage/ci1", felt: 5, alert: null, tsunami: false }]);
    expect(() => parseUsgsFeed({ error: "x" })).toThrow(/FeatureCollection/);
  });

  it("asks OpenFEMA for a week of declarations from a UTC midnight and reads its rows", () => {
    const url = openFemaUrl("https://www.fema.gov/api/open", new Date(AT));
    expect(url.pathname).toBe("/api/open/v2/DisasterDeclarationsSummaries");
    expect(url.searchParams.get("$filter")).toBe("declarationDate ge '2026-11-19T00:00:00.000Z'");
    expect(url.searchParams.get("$orderby")).toBe("declarationDate desc");
    expect(parseDeclarations({ metadata: {}, DisasterDeclarationsSummaries: [{ ...declaration({}), id: "x", fipsCountyCode: "81" }, { disasterNumber: "?" }] }))
      .toEqual([declaration({})]);
  });
});
