import { describe, expect, it } from "vitest";
import { readStoredWeather, WeatherSnapshot } from "../../src/core/weather/snapshot.ts";

// The weather snapshot is one domain type with one schema: what providers answer, what an edition
// stores, what /api/weather and the site read back. Stored JSON is read part by part.

const today = { high: 48, low: 31, current: 40, code: 61, condition: "Light rain", emoji: "🌦️" };
const day = (date: string, high = 50) => ({ date, high, low: high - 15, code: 3, precipitationChance: 20 });

describe("a stored weather snapshot", () => {
  it("reads back what the pipeline stored", () => {
    const snapshot: WeatherSnapshot = { today, daily: [day("2026-11-22"), day("2026-11-23")] };
    expect(WeatherSnapshot.parse(snapshot)).toEqual(snapshot);
    expect(readStoredWeather(JSON.stringify(snapshot))).toEqual({ today, daily: snapshot.daily });
  });

  it("drops only the parts that do not match the schema", () => {
    const stored = JSON.stringify({ today: { ...today, code: "rain" }, daily: [day("2026-11-22"), { date: "2026-11-23", high: "warm" }, null, day("2026-11-24")] });
    const read = readStoredWeather(stored);
    expect(read.today).toBeNull();
    expect(read.daily.map((d) => d.date)).toEqual(["2026-11-22", "2026-11-24"]);
    // A day without a precipitation chance has none (null), as the provider would say.
    const { precipitationChance: _, ...noChance } = day("2026-11-25");
    expect(readStoredWeather(JSON.stringify({ today, daily: [noChance] })).daily[0].precipitationChance).toBeNull();
  });

  it("reads nothing from no JSON, broken JSON or the wrong shape", () => {
    for (const json of [null, undefined, "", "{not json", "null", "42", '"text"', '{"daily": {"0": 1}}']) {
      expect(readStoredWeather(json), String(json)).toEqual({ today: null, daily: [] });
    }
  });
});
