import { describe, expect, it } from "vitest";
import { AlertIndex, alertReaches, countyUgc, pointInPolygon, sameCode, zoneIdOf, type AlertArea, type TownArea } from "../../src/core/hazards/alert-areas.ts";
import { gridCell, gridKey } from "../../src/core/weather/grid-cells.ts";
import { blockedUntil, rateWindowOf } from "../../src/core/sources/rate-windows.ts";

// Which towns one national NWS answer reaches, decided in memory: by polygon, by zone, by county.

// White Pine County, Nevada: Ely in the valley zone NVZ036; a mountain zone NVZ037 of the same county.
const ely: TownArea = { latitude: 39.2533, longitude: -114.8742, zones: ["NVZ036", "NVZ467"], county: "NVC033", same: "032033" };
const elyUnknownZone: TownArea = { ...ely, zones: [] };
// Reno, Washoe County, another zone.
const reno: TownArea = { latitude: 39.5296, longitude: -119.8138, zones: ["NVZ003"], county: "NVC031", same: "032031" };
const area = (a: Partial<AlertArea>): AlertArea => ({ ugc: [], same: [], polygons: [], ...a });
// A box around Ely (lon, lat), closed.
const box = (w: number, s: number, e: number, n: number): Array<[number, number]> => [[w, s], [e, s], [e, n], [w, n], [w, s]];

describe("codes of a place's county and zone", () => {
  it("derives the county UGC and SAME code from the county GEOID, and a zone id from its NWS URL", () => {
    expect(countyUgc("NV", "32033")).toBe("NVC033");
    expect(sameCode("32033")).toBe("032033");
    expect(countyUgc("NV", null)).toBeNull();
    expect(sameCode("")).toBeNull();
    expect(zoneIdOf("https://api.weather.gov/zones/forecast/NVZ036")).toBe("NVZ036");
    expect(zoneIdOf("https://api.weather.gov/zones/county/NVC033")).toBe("NVC033");
    expect(zoneIdOf("https://api.weather.gov/zones/fire/NVZ467")).toBe("NVZ467");
    expect(zoneIdOf(null)).toBeNull();
  });
});

describe("point in polygon", () => {
  it("is inside a ring, outside it, and outside again in a hole", () => {
    const ring = box(-115, 39, -114, 40);
    expect(pointInPolygon(-114.5, 39.5, [ring])).toBe(true);
    expect(pointInPolygon(-113.9, 39.5, [ring])).toBe(false);
    expect(pointInPolygon(-114.5, 39.5, [ring, box(-114.6, 39.4, -114.4, 39.6)])).toBe(false);
    // A concave (L-shaped) warning polygon: the notch is outside.
    const l: Array<[number, number]> = [[0, 0], [2, 0], [2, 1], [1, 1], [1, 2], [0, 2], [0, 0]];
    expect(pointInPolygon(0.5, 1.5, [l])).toBe(true);
    expect(pointInPolygon(1.5, 1.5, [l])).toBe(false);
  });
});

describe("an alert reaching a town", () => {
  it("by zone: the mountain zone's warning does not reach the valley town of the same county", () => {
    const mountain = area({ ugc: ["NVZ037"], same: ["032033"] });
    expect(alertReaches(mountain, ely)).toBe(false);
    expect(alertReaches(area({ ugc: ["NVZ036", "NVZ037"], same: ["032033"] }), ely)).toBe(true);
    // A fire-weather zone (red flag warning) counts as one of the town's zones.
    expect(alertReaches(area({ ugc: ["NVZ467"], same: ["032033"] }), ely)).toBe(true);
    expect(alertReaches(mountain, reno)).toBe(false);
  });

  it("by zone, for a town whose zone is not looked up yet: its county's SAME code decides (over-reach, never a miss)", () => {
    expect(alertReaches(area({ ugc: ["NVZ037"], same: ["032033"] }), elyUnknownZone)).toBe(true);
    expect(alertReaches(area({ ugc: ["NVZ003"], same: ["032031"] }), elyUnknownZone)).toBe(false);
  });

  it("by county: every town of the county, none of the next", () => {
    const county = area({ ugc: ["NVC033"], same: ["032033"] });
    expect([alertReaches(county, ely), alertReaches(county, elyUnknownZone), alertReaches(county, reno)]).toEqual([true, true, false]);
  });

  it("by polygon: the towns inside it, not the rest of the county or zone it also names", () => {
    const warning = area({ ugc: ["NVC033"], same: ["032033"], polygons: [[box(-115, 39, -114.5, 39.5)]] });
    expect(alertReaches(warning, ely)).toBe(true);
    const elsewhere = area({ ugc: ["NVC033"], same: ["032033"], polygons: [[box(-114.5, 38.5, -114, 39)]] });
    expect(alertReaches(elsewhere, ely)).toBe(false);
  });

  it("a marine zone reaches no town", () => {
    expect(alertReaches(area({ ugc: ["PZZ750"], same: ["057750"] }), ely)).toBe(false);
  });
});

describe("the national index", () => {
  it("gives each town exactly the alerts that reach it", () => {
    const index = new AlertIndex([
      { item: "mountain", area: area({ ugc: ["NVZ037"], same: ["032033"] }) },
      { item: "valley", area: area({ ugc: ["NVZ036"], same: ["032033"] }) },
      { item: "washoe", area: area({ ugc: ["NVC031"], same: ["032031"] }) },
      { item: "tornado", area: area({ ugc: ["NVC033"], same: ["032033"], polygons: [[box(-115, 39, -114.5, 39.5)]] }) },
      { item: "far tornado", area: area({ ugc: ["NVC033"], same: ["032033"], polygons: [[box(-114.4, 38, -114, 38.5)]] }) },
    ]);
    expect(index.forTown(ely)).toEqual(["valley", "tornado"]);
    expect(index.forTown(elyUnknownZone).sort()).toEqual(["mountain", "tornado", "valley"]);
    expect(index.forTown(reno)).toEqual(["washoe"]);
  });
});

describe("grid cells", () => {
  it("gives towns in one 0.1° cell one location, and the timezone is part of the key", () => {
    expect(gridCell(39.2533, -114.8742)).toEqual({ latitude: 39.3, longitude: -114.9 });
    expect(gridKey(39.2533, -114.8742, "America/Los_Angeles")).toBe(gridKey(39.27, -114.88, "America/Los_Angeles"));
    expect(gridKey(39.2533, -114.8742, "America/Los_Angeles")).not.toBe(gridKey(39.36, -114.8742, "America/Los_Angeles"));
    expect(gridKey(39.2533, -114.8742, "America/Los_Angeles")).not.toBe(gridKey(39.2533, -114.8742, "America/Denver"));
    expect(gridCell(-14.27, -170.7)).toEqual({ latitude: -14.3, longitude: -170.7 });
  });
});

describe("a 429's window", () => {
  const at = Date.parse("2026-11-24T11:59:30Z");
  it("reads Open-Meteo's reasons and waits out the whole window named", () => {
    expect(rateWindowOf("Minutely API request limit exceeded. Please try again in one minute.")).toBe("minute");
    expect(rateWindowOf("Hourly API request limit exceeded. Please try again in the next hour.")).toBe("hour");
    expect(rateWindowOf("Daily API request limit exceeded. Please try again tomorrow.")).toBe("day");
    expect(rateWindowOf(undefined)).toBe("unknown");
    expect(blockedUntil("minute", at)).toBe(at + 60_000);
    expect(blockedUntil("hour", at)).toBe(at + 3_600_000);
    expect(new Date(blockedUntil("day", at)).toISOString()).toBe("2026-11-25T00:00:00.000Z");
    // A Retry-After longer than the window wins.
    expect(blockedUntil("minute", at, 120_000)).toBe(at + 120_000);
  });
});
