import { describe, expect, it } from "vitest";
import { describeWeatherCode, UNKNOWN_CONDITION, WMO_CONDITIONS } from "../../src/core/weather/wmo.ts";

// The codes Open-Meteo documents for `weather_code` (https://open-meteo.com/en/docs, "WMO Weather interpretation codes").
const DOCUMENTED = [0, 1, 2, 3, 45, 48, 51, 53, 55, 56, 57, 61, 63, 65, 66, 67, 71, 73, 75, 77, 80, 81, 82, 85, 86, 95, 96, 99];

describe("WMO weather codes", () => {
  it("map exactly the codes Open-Meteo documents", () => {
    expect(Object.keys(WMO_CONDITIONS).map(Number).sort((a, b) => a - b)).toEqual(DOCUMENTED);
  });

  it.each(DOCUMENTED)("code %i has its own condition and an emoji", (code) => {
    const { condition, emoji } = describeWeatherCode(code);
    expect(condition).not.toBe(UNKNOWN_CONDITION.condition);
    expect(condition).toMatch(/^[A-Z][a-z ]+$/);
    expect(emoji).toMatch(/^\p{Extended_Pictographic}/u);
  });

  it("gives every code a distinct condition", () => {
    const conditions = DOCUMENTED.map((c) => describeWeatherCode(c).condition);
    expect(new Set(conditions).size).toBe(DOCUMENTED.length);
  });

  it("reads a few codes the way a U.S. reader expects", () => {
    expect(describeWeatherCode(0)).toEqual({ condition: "Clear sky", emoji: "☀️" });
    expect(describeWeatherCode(61).condition).toBe("Light rain");
    expect(describeWeatherCode(73).condition).toBe("Snow");
    expect(describeWeatherCode(99).condition).toBe("Thunderstorm with heavy hail");
  });

  it.each([4, 42, 100, -1, 1.5])("falls back for an undocumented code (%s)", (code) => {
    expect(describeWeatherCode(code)).toEqual(UNKNOWN_CONDITION);
  });
});
