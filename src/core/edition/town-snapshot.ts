// One town's morning, gathered: everything its edition is composed from, as plain data (no
// promises, no handles), so composing is a pure function of it (src/core/edition/compose-town.ts)
// that can run anywhere, a worker thread included. The morning's gather step
// (src/services/morning/gather.ts) fills it from the run's sources and a few batched reads.
import type { CalendarEvent, DirectoryListing } from "../../contract/resources.ts";
import type { WeatherSnapshot } from "../weather/snapshot.ts";
import type { WeatherAlert } from "../hazards/weather-alert.ts";
import type { AirQuality } from "../weather/air-quality.ts";
import type { FeedParts } from "../sources/feed-parts.ts";
import type { TownHazards } from "../hazards/town-hazards.ts";
import type { DayWeather } from "./archive-notes.ts";
import type { TownFactContext } from "./did-you-know.ts";

export interface TownSnapshot {
  town: {
    geoid: string;
    slug: string;
    name: string;
    stateName: string;
    stateCode: string;
    timezone: string;
    latitude: number;
    longitude: number;
  };
  /** The edition's date (the town's local date). */
  date: string;
  baseUrl: string;
  /** The key that signs the edition's outbound links (src/core/edition/click-links.ts). */
  clickKey: string;
  /** From the run's sources: null (or none) when a source gave nothing. */
  weather: WeatherSnapshot | null;
  alerts: WeatherAlert[];
  airQuality: AirQuality | null;
  /** The town's feeds' events, headline candidates and credits; null when reading them failed (the edition goes without). */
  feeds: FeedParts | null;
  /** Of the candidates, the keys an earlier edition of the town showed. */
  headlinesShownBefore: string[];
  /** The town's featured events and its directory (src/site/city-listings.ts), without the feeds' calendars. */
  listings: { events: CalendarEvent[]; directory: DirectoryListing[] };
  note: { markdown: string; authorName: string } | null;
  /** The town's stored weather before the date: every day of the last 190 and the same day of earlier years. */
  history: DayWeather[];
  facts: { context: TownFactContext; recent: Array<{ date: string; key: string | null }> };
  /** Its part of the run's hazards, without what an earlier edition told; null when the run gathered none. */
  hazards: TownHazards | null;
}

/** A composed town: the edition and the records it implies, for the store step. */
export interface ComposedTown {
  geoid: string;
  date: string;
  subject: string;
  markdown: string;
  html: string;
  weather: WeatherSnapshot | null;
  /** The fact told, so that it does not come back within 30 mornings. */
  factKey: string | null;
  headlinesShown: Array<{ key: string; publishedAt: string | null }>;
  /** The hazard keys the edition told (news once). */
  hazardsTold: string[];
  /** Today's UV index from the forecast, for the hazards summary. */
  uvIndexMax: number | null | undefined;
  hazards: TownHazards | null;
  /** The edition's words as the search index keeps them (made with the edition: composing may run in a worker thread). */
  searchBody: string;
}
