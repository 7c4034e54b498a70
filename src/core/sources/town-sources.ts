// What the morning gathers for one town from public sources beyond the forecast: the seam between
// fetching (src/integrations, src/services/sources/town-sources.ts) and composing (src/core/edition/compose.ts).
// Plain data, no I/O. Every list may be empty and every field that can be missing is null: a source
// that is down gives nothing, never an error.
import type { FeedEvent } from "../calendar/feed-event.ts";
import { NO_TOWN_HAZARDS, type TownHazards } from "../hazards/town-hazards.ts";
import type { WeatherAlert } from "../hazards/weather-alert.ts";
import type { AirQuality } from "../weather/air-quality.ts";

/** One item from a town's RSS or Atom feed: its title and link only, never the article's text. */
export interface Headline {
  /** Stable per item (guid/id, else link): the key that keeps it from being shown twice in a town. */
  key: string;
  title: string;
  url: string;
  /** The outlet: the feed's title ("The Ely Times"). */
  outlet: string;
  /** ISO 8601, when the feed gives one. */
  publishedAt: string | null;
  /** From a county-wide outlet (shown because it names the town): the edition says so. */
  countyWide?: boolean;
}

/** A public source the edition drew on (a town feed): credited by name with a link to its site. */
export interface SourceCredit {
  name: string;
  url: string;
  countyWide: boolean;
}

/** Everything public sources add to one town's edition of one date. */
export interface TownSources {
  /** Active at publication, most severe first; expired ones already removed. */
  alerts: WeatherAlert[];
  airQuality: AirQuality | null;
  /** Occurrences from the town's iCalendar feeds in the edition's 7 days. */
  events: FeedEvent[];
  /** New items not yet shown in an earlier edition of this town, newest first, at most 5. */
  headlines: Headline[];
  /** The town's feeds with a site to credit (directory sources); the edition names those it drew on. */
  credits?: SourceCredit[];
  /**
   * What the hazards every town shares give this town (src/core/hazards/town-hazards.ts): felt quakes, new disaster
   * declarations for its county, today's tides. Gathered once per run (src/services/weather/hazards.ts);
   * absent reads as none.
   */
  hazards?: TownHazards;
}

/** A feed's last good items serve for a day after they were fetched (with the hours a morning run may drift). */
export const FEED_ITEMS_KEPT_MS = 30 * 3_600_000;
/** Calendar events are read this many days ahead: the edition's week, and the town page's. */
export const FEED_EVENT_DAYS = 7;

export const NO_TOWN_SOURCES: TownSources = { alerts: [], airQuality: null, events: [], headlines: [], hazards: NO_TOWN_HAZARDS };
