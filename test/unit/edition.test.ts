import { describe, expect, it } from "vitest";
import { airQualityLine, activeAlerts, alertSummary } from "../../src/core/hazards/alert-section.ts";
import { archiveNotes, weatherChange } from "../../src/core/edition/archive-notes.ts";
import { composeEdition } from "../../src/core/edition/compose.ts";
import { renderEditionHtml } from "../../src/core/edition/render-html.ts";
import { eventWhenWords } from "../../src/core/calendar/event-time.ts";
import { factOfDay, FACT_WINDOW_DAYS, townFacts, type TownFactContext } from "../../src/core/edition/did-you-know.ts";
import { addDays } from "../../src/lib/time.ts";
import { NO_TOWN_SOURCES } from "../../src/core/sources/town-sources.ts";
import { ELY_DATE, elyInputs, elySources, elyWeather, winterStorm } from "../fixtures/edition/ely.ts";

const sections = (md: string) => [...md.matchAll(/^## (.+)$/gm)].map((m) => m[1]);

describe("the lead, by rule", () => {
  it("an active warning leads the edition and its subject, with when it ends in local time, what to do and a link", () => {
    const { subject, markdown, lead } = composeEdition(elyInputs());
    expect(lead).toBe("alert");
    expect(subject).toBe("Ely, Nov 24: Winter Storm Warning until 4:00 PM Wed · Snow, high 38°F");
    expect(sections(markdown)[0]).toBe("Winter Storm Warning");
    expect(markdown).toContain("**Until 4:00 PM Wed, Nov 25.** Heavy snow expected. Total snow accumulations of 8 to 14 inches.");
    expect(markdown).toContain("**What to do:** If you must travel, keep an extra flashlight, food, and water in your vehicle in case of an emergency.");
    expect(markdown).toContain("[Read the full winter storm warning](https://alerts.weather.gov/search?id=urn:oid:2.49.0.1.840.0.ely-storm)");
    expect(markdown).toContain("Warnings: National Weather Service.");
    // Under the greeting and the operator's note.
    expect(markdown.indexOf("Dana Ruiz")).toBeLessThan(markdown.indexOf("## Winter Storm Warning"));
  });

  it("an expired alert is never shown, whatever the source sent", () => {
    const at = "2026-11-26T01:00:00.000Z"; // 5:00 PM Wed in Ely: an hour after the warning ended
    expect(activeAlerts([winterStorm], at)).toEqual([]);
    const { markdown, lead, subject } = composeEdition(elyInputs({ at }));
    expect(markdown).not.toContain("Winter Storm Warning");
    expect(subject).not.toContain("Warning");
    expect(lead).not.toBe("alert");
  });

  it("without a warning: today's featured event, else a notable one from the town's calendars", () => {
    const noAlert = elySources({ alerts: [] });
    const featuredToday = { ...elyInputs().events[0]!, startsAt: `${ELY_DATE}T19:00` };
    const withFeatured = composeEdition(elyInputs({ sources: noAlert, events: [featuredToday] }));
    expect(withFeatured.lead).toBe("event");
    expect(withFeatured.subject).toBe("Ely, Nov 24: Holiday Lights Parade at 7:00 PM · Snow, high 38°F");
    expect(sections(withFeatured.markdown)[0]).toBe("Today: Holiday Lights Parade");
    expect(withFeatured.markdown).toContain("Sponsored. **7:00 PM at Aultman Street.**");
    const fromFeed = composeEdition(elyInputs({ sources: noAlert, events: [] }));
    expect(fromFeed.subject).toBe("Ely, Nov 24: Knitting circle at 6:00 PM · Snow, high 38°F");
  });

  it("then the top new headline, then a notable change in the weather", () => {
    const headline = composeEdition(elyInputs({ sources: elySources({ alerts: [], events: [] }), events: [] }));
    expect(headline.lead).toBe("headline");
    expect(headline.subject).toBe("Ely, Nov 24: County approves new snowplow contract · Snow, high 38°F");
    expect(sections(headline.markdown)).toContain("More local headlines");
    expect(headline.markdown.match(/County approves new snowplow contract/g)).toHaveLength(1);

    const warm = composeEdition(elyInputs({
      sources: NO_TOWN_SOURCES, events: [], weather: elyWeather(ELY_DATE, 64, 30, 0),
      history: [{ date: addDays(ELY_DATE, -1), high: 41, low: 20, code: 3 }],
    }));
    expect(warm.lead).toBe("weather");
    expect(warm.subject).toBe("Ely, Nov 24: 23°F warmer than yesterday, high 64°F");
    expect(warm.markdown).toContain("A high of 64°F today, 23°F warmer than yesterday's 41°F.");
    const quiet = composeEdition(elyInputs({ sources: NO_TOWN_SOURCES, events: [], history: [] }));
    expect(quiet.lead).toBeNull();
    expect(quiet.subject).toBe("Ely, Nov 24: Snow, high 38°F");
  });

  it("first freeze and first snow only when the archive covers the season", () => {
    const autumn = Array.from({ length: 20 }, (_, i) => ({ date: addDays(ELY_DATE, -20 + i), high: 55, low: 36, code: 3 }));
    expect(weatherChange({ high: 40, low: 28, code: 3 }, ELY_DATE, autumn)?.key).toBe("first-freeze");
    expect(weatherChange({ high: 40, low: 34, code: 73 }, ELY_DATE, autumn)?.key).toBe("first-snow");
    expect(weatherChange({ high: 40, low: 28, code: 3 }, ELY_DATE, autumn.slice(-5))).toBeNull();
    expect(weatherChange({ high: 40, low: 28, code: 3 }, ELY_DATE, [...autumn, { date: addDays(ELY_DATE, -1), high: 40, low: 30, code: 3 }])).toBeNull();
  });
});

describe("sections", () => {
  it("air quality: the AQI, its EPA category in words, the EPA's advice above Moderate, Open-Meteo credited", () => {
    expect(airQualityLine({ usAqi: 112.4, dominant: "pm2_5", asOf: "" })).toBe("Air quality: 112, unhealthy for sensitive groups; mostly fine particles. People with heart or lung disease, older adults, children and teens should reduce prolonged or heavy exertion outdoors.");
    expect(airQualityLine({ usAqi: 42, dominant: "ozone", asOf: "" })).toBe("Air quality: 42, good.");
    expect(airQualityLine({ usAqi: 88, dominant: "ozone", asOf: "" })).toBe("Air quality: 88, moderate; mostly ozone.");
    expect(airQualityLine({ usAqi: 350, dominant: null, asOf: "" })).toMatch(/^Air quality: 350, hazardous\. Everyone should avoid/);
    expect(composeEdition(elyInputs()).markdown).toContain("Forecast and air quality: [Open-Meteo.com](https://open-meteo.com/) (CC BY 4.0).");
  });

  it("a warning says what to expect in a sentence or two", () => {
    expect(alertSummary("...WIND ADVISORY IN EFFECT UNTIL 6 PM PST THIS EVENING...\n\nSouthwest winds 25 to 35 mph. Gusts to 55 mph. Secure loose objects.")).toBe("Southwest winds 25 to 35 mph. Gusts to 55 mph.");
    expect(alertSummary("HEAVY SNOW EXPECTED OVER THE PASSES TONIGHT.")).toBe("Heavy snow expected over the passes tonight.");
  });

  it("calendar: feed events name their source, paid ones say Sponsored with rel=sponsored links, times in local words", () => {
    const { markdown } = composeEdition(elyInputs());
    // The source is named, unless the venue already says it.
    expect(markdown).toContain("- **Story time**, Wed, Nov 25, 10:30 AM to 11:15 AM at White Pine County Library. Stories and songs for children under 5. [Details](https://library.example/storytime)");
    expect(markdown).toContain("- **City offices closed**, Thu, Nov 26, all day. From City of Ely.");
    expect(markdown).toContain("- Sponsored: **Holiday Lights Parade**, Wed, Nov 25, 7:00 PM at Aultman Street.");
    expect(markdown).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
    const html = renderEditionHtml(markdown);
    expect(html).toContain('<a href="https://parade.example/" rel="sponsored">Details</a>');
    expect(html).toContain('<a href="https://library.example/storytime">Details</a>');
    expect(eventWhenWords({ startsAt: "2026-11-25T12:00", venue: "Town Hall" }, { withDay: true })).toBe("Wed, Nov 25, noon at Town Hall");
  });

  it("featured businesses' weekly mention: Sponsored, with category and address", () => {
    const days = Array.from({ length: 7 }, (_, i) => addDays(ELY_DATE, i));
    const mentions = days.map((d) => composeEdition(elyInputs({ date: d })).markdown).filter((m) => m.includes("Silver State Bakery"));
    expect(mentions).toHaveLength(1);
    expect(mentions[0]).toContain("- Sponsored: **Silver State Bakery** (Bakery, 501 Aultman St). Fresh bread every morning. [Website](https://bakery.example/ \"Sponsored\")");
  });

  it("headlines: up to 5, each its title linked with the outlet's name", () => {
    const many = Array.from({ length: 7 }, (_, i) => ({ key: `k${i}`, title: `Story ${i}`, url: `https://news.example/${i}`, outlet: "The Ely Times", publishedAt: null }));
    const { markdown } = composeEdition(elyInputs({ sources: elySources({ headlines: many }) }));
    expect(markdown).toContain("## Local headlines");
    expect(markdown).toContain("- [Story 0](https://news.example/0) (The Ely Times)");
    expect(markdown).toContain("- [Story 4](https://news.example/4) (The Ely Times)");
    expect(markdown).not.toContain("Story 5");
  });

  it("from the archive: a year ago today, and records only where two or more years support them", () => {
    expect(archiveNotes({ high: 38, low: 19 }, ELY_DATE, [{ date: "2025-11-24", high: 45, low: 22, code: 3 }]))
      .toEqual([{ text: "A year ago today: overcast, a high of 45°F (today: 38°F) and a low of 22°F.", link: "2025-11-24" }]);
    const twoYears = [{ date: "2024-11-24", high: 50, low: 30, code: 0 }, { date: "2025-11-24", high: 45, low: 22, code: 3 }];
    expect(archiveNotes({ high: 58, low: 25 }, ELY_DATE, twoYears).map((n) => n.text)).toContain("A forecast high of 58°F would make this the warmest November 24 in our records (since 2024).");
    const { markdown } = composeEdition(elyInputs());
    expect(markdown).toContain("- A year ago today: overcast, a high of 45°F (today: 38°F) and a low of 22°F. [Read that edition](https://citydaily.example/ely-nevada/2025-11-24)");
  });

  it("reading time and order: warning, weather, calendar, headlines, directory, archive, fact, sun, holidays", () => {
    const { markdown } = composeEdition(elyInputs());
    expect(markdown).toMatch(/^Good morning, Ely, Nevada\. Here is your day, a [1-3]-minute read\.$/m);
    expect(sections(markdown)).toEqual(["Winter Storm Warning", "Weather", "On the calendar", "Local headlines", "From the directory", "From the archive", "Did you know?", "Sun", "Holidays and observances"]);
  });

  it("a town named like its state is greeted once", () => {
    const { markdown } = composeEdition(elyInputs({ place: { name: "New York", stateName: "New York", slug: "new-york-new-york", timezone: "America/New_York" } }));
    expect(markdown).toMatch(/^Good morning, New York\. Here is your day/m);
  });
});

describe("town facts that do not repeat", () => {
  const ctx: TownFactContext = {
    name: "Ely", stateName: "Nevada", countyName: "White Pine County", timeZoneName: "Pacific Time", latitude: 39.25,
    figures: { population: 3941, housingUnits: 2141, landAreaSqMi: 7.626, year: "2023" },
    stateRank: { rank: 41, of: 129 }, countyRank: { rank: 1, of: 5 }, stateDensity: 2890,
    nearestLarger: { name: "Spring Creek", stateName: "Nevada", population: 15000, miles: 148.6, bearing: 330 },
    capital: { name: "Carson City", stateName: "Nevada", population: 58364, miles: 240.2, bearing: 275 },
  };

  it("builds many more facts from the dataset, in plain words", () => {
    const facts = townFacts(ctx);
    const text = Object.fromEntries(facts.map((f) => [f.key, f.text]));
    expect(text.rankInState).toBe("Ely is the 41st-largest of Nevada's 129 Census places by population.");
    expect(text.rankInCounty).toBe("Ely is the largest of the 5 Census places in White Pine County.");
    expect(text.densityAgainstState).toBe("Ely has about 517 people per square mile of land, about a fifth the figure for Nevada's towns and cities taken together (2,890).");
    expect(text.nearestLarger).toBe("The nearest larger town is Spring Creek (about 15,000 people), 149 miles to the northwest.");
    expect(text.landCompared).toBe("Ely's 7.6 square miles of land are about a third the size of Manhattan (22.7).");
    expect(text.homesPerResident).toBe("Ely has about 54 homes for every 100 residents.");
    expect(text.county).toBe("Ely lies in White Pine County, Nevada.");
    expect(text.timeZone).toBe("Ely keeps Pacific Time.");
    expect(text.latitude).toBe("Ely lies at 39.3° north, about as far north as Lisbon.");
    expect(text.capital).toBe("Ely is about 240 miles east of Carson City, Nevada's capital.");
    expect(facts.map((f) => f.text).join(" ")).not.toMatch(/imported|null|NaN|undefined/);
  });

  it("no fact repeats within 30 mornings; fewer facts are spaced out, not repeated", () => {
    const run = (facts: ReturnType<typeof townFacts>, days: number) => {
      const told: Array<{ date: string; key: string | null }> = [];
      for (let i = 0; i < days; i++) {
        const date = addDays(ELY_DATE, i);
        told.push({ date, key: factOfDay(facts, "3223200", date, told)?.key ?? null });
      }
      return told;
    };
    const facts = townFacts(ctx);
    expect(facts.length).toBeLessThan(FACT_WINDOW_DAYS);
    const told = run(facts, 60);
    for (let i = 0; i < told.length; i++) {
      const window = told.slice(Math.max(0, i - FACT_WINDOW_DAYS + 1), i + 1).map((t) => t.key).filter(Boolean);
      expect(new Set(window).size).toBe(window.length);
    }
    const mentions = told.filter((t) => t.key).length;
    expect(mentions).toBeGreaterThanOrEqual(facts.length);
    // With 30 or more facts, one every morning, none twice in 30.
    const many = Array.from({ length: 40 }, (_, i) => ({ key: `f${i}`, text: `Fact ${i}.` }));
    const daily = run(many, 45);
    expect(daily.every((t) => t.key)).toBe(true);
    expect(new Set(daily.slice(0, 30).map((t) => t.key)).size).toBe(30);
  });
});
