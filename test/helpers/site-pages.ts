import { composeEdition } from "../../src/core/edition/compose.ts";
import { renderEditionHtml } from "../../src/core/edition/render-html.ts";
import { addDays } from "../../src/lib/time.ts";
import { NO_TOWN_SOURCES } from "../../src/core/sources/town-sources.ts";
import { describeWeatherCode } from "../../src/core/weather/wmo.ts";
import { buildSite } from "../../src/services/site/publish.ts";
import { insertEdition } from "../../src/store/morning/editions.ts";
import { geoidOf } from "./seed.ts";
import { startTestServer, type TestServer } from "./server.ts";

/**
 * A published test site with every page type, its editions written by the real composer (so the
 * pages carry the real markdown tables, headings and footer). Used by the markup and phone tests.
 */
export async function startSiteWithEditions(): Promise<TestServer> {
  const server = await startTestServer();
  const cities: Array<[string, string, string]> = [
    ["boise-idaho", "Boise", "Idaho"],
    ["new-york-new-york", "New York", "New York"],
    ["san-juan-puerto-rico", "San Juan", "Puerto Rico"],
  ];
  for (const [slug, name, stateName] of cities) {
    for (const date of ["2026-11-20", "2026-11-21"]) {
      const daily = Array.from({ length: 7 }, (_, i) => ({
        date: addDays(date, i), high: 48 + i * 2, low: 31 + i, code: i % 2 ? 3 : 61, precipitationChance: (i * 15) % 100,
      }));
      const now = describeWeatherCode(3);
      const weather = { today: { high: 48, low: 31, current: 40, code: 3, condition: now.condition, emoji: now.emoji, precipitationChance: 0, windSpeed: 12 }, daily };
      const { subject, markdown } = composeEdition({
        place: { name, stateName, slug }, date, baseUrl: server.url, weather,
        sun: { sunrise: "7:32 AM", sunset: "5:11 PM", daylightMinutes: 579, source: "suncalc" },
        holidays: { today: [], upcoming: [{ date: "2026-11-26", name: "Thanksgiving Day", kind: "federal" }] },
        censusFact: { key: "population", text: `${name} is home to many people.` }, events: [], listings: [], sources: NO_TOWN_SOURCES,
      });
      insertEdition(server.ctx.db, {
        placeGeoid: geoidOf(server.ctx.db, slug), date, subject, markdown, html: renderEditionHtml(markdown), weather,
        publishedAt: `${date}T13:00:00.000Z`,
      });
    }
  }
  await buildSite(server.ctx);
  return server;
}

/** One address of every page type of the site. */
export const PAGE_TYPES = {
  home: "/",
  cities: "/cities",
  states: "/states",
  state: "/states/idaho",
  city: "/boise-idaho",
  "city same name as state": "/new-york-new-york",
  edition: "/boise-idaho/2026-11-21",
  "city without edition": "/twin-falls-idaho",
  developers: "/developers",
  "not found": "/nowhere-at-all-ohio",
} as const;
