import { plainTextOf } from "../search/text.ts";
import { holidaysOn, upcomingHolidays } from "../calendar/holidays.ts";
import { hazardKeys } from "../hazards/town-hazards.ts";
import { newHeadlines } from "../sources/feed-parts.ts";
import { NO_TOWN_SOURCES, type TownSources } from "../sources/town-sources.ts";
import { sunTimes } from "../weather/sun.ts";
import { withClickLinks } from "./click-links.ts";
import { composeEdition } from "./compose.ts";
import { factOfDay, townFacts } from "./did-you-know.ts";
import { renderEditionHtml } from "./render-html.ts";
import type { ComposedTown, TownSnapshot } from "./town-snapshot.ts";

/**
 * A town's edition from its snapshot, and what storing it records: the headlines shown, the hazards
 * told, the fact's key. Pure: no database, no network, no clock but `now`.
 */
export function composeTown(s: TownSnapshot, now: Date): ComposedTown {
  const { town, date, weather } = s;
  const feeds = s.feeds ? { events: s.feeds.events, headlines: newHeadlines(s.feeds.candidates, new Set(s.headlinesShownBefore)), credits: s.feeds.credits } : null;
  const sources: TownSources = feeds ? { alerts: s.alerts, airQuality: s.airQuality, ...feeds } : NO_TOWN_SOURCES;
  const today = weather?.daily.find((d) => d.date === date);
  const { subject, markdown, factKey } = composeEdition({
    place: { name: town.name, stateName: town.stateName, slug: town.slug, timezone: town.timezone },
    date,
    baseUrl: s.baseUrl,
    at: now.toISOString(),
    weather,
    sun: sunTimes({ date, latitude: town.latitude, longitude: town.longitude, timezone: town.timezone, forecast: today }),
    holidays: { today: holidaysOn(date, town.stateCode), upcoming: upcomingHolidays(date, town.stateCode) },
    censusFact: factOfDay(townFacts(s.facts.context), town.geoid, date, s.facts.recent),
    // The daily email carries the featured events; the directory section mentions featured businesses weekly.
    events: s.listings.events,
    listings: s.listings.directory,
    sources: s.hazards ? { ...sources, hazards: s.hazards } : sources,
    note: s.note,
    history: s.history,
  });
  // Outbound links go through our counting redirect (src/core/edition/click-links.ts); the markdown keeps them as they are.
  const html = withClickLinks(renderEditionHtml(markdown), s.baseUrl, s.clickKey, town.slug, date);
  return {
    geoid: town.geoid, date, subject, markdown, html, weather, factKey,
    headlinesShown: sources.headlines.map((h) => ({ key: h.key, publishedAt: h.publishedAt })),
    hazardsTold: s.hazards ? hazardKeys(s.hazards) : [],
    uvIndexMax: today?.uvIndexMax,
    hazards: s.hazards,
    searchBody: plainTextOf(markdown),
  };
}
