import { afterAll, describe, expect, it } from "vitest";
import { composeTown } from "../../src/core/edition/compose-town.ts";
import type { TownSnapshot } from "../../src/core/edition/town-snapshot.ts";
import { composeWorkers } from "../../src/services/morning/compose-workers.ts";
import { ELY_DATE, elySources, elyWeather, winterStorm } from "../fixtures/edition/ely.ts";

// composeTown: a town's snapshot in, its edition and the records it implies out, the same on this
// thread and in a worker thread (structured clone both ways).

const NOW = new Date("2026-11-24T14:00:00Z");

function snapshot(over: Partial<TownSnapshot> = {}): TownSnapshot {
  const sources = elySources();
  return {
    town: { geoid: "3223500", slug: "ely-nevada", name: "Ely", stateName: "Nevada", stateCode: "NV", timezone: "America/Los_Angeles", latitude: 39.25, longitude: -114.89 },
    date: ELY_DATE,
    baseUrl: "https://citydaily.example",
    clickKey: "test-key",
    weather: elyWeather(ELY_DATE),
    alerts: [winterStorm],
    airQuality: sources.airQuality,
    feeds: {
      events: sources.events,
      candidates: [...sources.headlines, { key: "ely-times-0", title: "Shown yesterday", url: "https://elytimes.example/news/old", outlet: "The Ely Times", publishedAt: "2026-11-23T19:00:00Z" }],
      credits: [],
    },
    headlinesShownBefore: ["ely-times-0"],
    listings: { events: [], directory: [] },
    note: null,
    history: [],
    facts: {
      context: { name: "Ely", stateName: "Nevada", countyName: "White Pine County", timeZoneName: "Pacific Time", latitude: 39.25, figures: null, stateRank: { rank: 40, of: 120 }, countyRank: null, stateDensity: 300, nearestLarger: null, capital: null },
      recent: [],
    },
    hazards: null,
    ...over,
  };
}

const pool = composeWorkers(1);
afterAll(() => pool.close());

describe("composeTown", () => {
  it("writes the edition and records the headlines shown and the fact told", () => {
    const c = composeTown(snapshot(), NOW);
    expect(c.headlinesShown.map((h) => h.key)).toEqual(["ely-times-1", "ely-times-2"]);
    expect(c.markdown).not.toContain("Shown yesterday");
    expect(c.factKey).not.toBeNull();
    expect(c.html).toContain("https://citydaily.example/go/ely-nevada/2026-11-24/");
    // The warning leads: the subject says so.
    expect(c.subject).toMatch(/^Ely, Nov 24: Winter Storm Warning/);
  });

  it("gives the same in a worker thread, and a town that throws fails alone", async () => {
    const bad = snapshot({ town: { ...snapshot().town, geoid: "bad" }, weather: { today: null, daily: null } as never });
    const [one, broken] = await pool.compose([snapshot(), bad], NOW);
    expect(one).toEqual({ ok: true, composed: composeTown(snapshot(), NOW) });
    expect(broken!.ok).toBe(false);
  });
});
