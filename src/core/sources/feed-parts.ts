// What a town's feeds give its edition, worked out from their stored items: the week's events of its
// calendars, the headline candidates of its news feeds (newest first), the outlets to credit; then
// the headlines, once the ones earlier editions showed are known. Pure: the morning reads the feeds'
// rows and the shown keys for many towns at once (src/services/morning/gather.ts).
import type { FeedEvent } from "../calendar/feed-event.ts";
import { feedEventsFor, type CalendarOccurrence } from "../calendar/calendar-events.ts";
import { localDate } from "../../lib/time.ts";
import { townNameMatcher } from "./county-filter.ts";
import { FEED_EVENT_DAYS, FEED_ITEMS_KEPT_MS, type Headline, type SourceCredit } from "./town-sources.ts";

/** Headlines per edition. */
export const MAX_HEADLINES = 5;
/** A dated item older than this is not news (a feed just added would otherwise drip its archive out, 5 a day). */
export const HEADLINE_MAX_AGE_MS = 7 * 86_400_000;

/** One of the town's feeds as stored: what the edition reads of it. */
export interface FeedRow {
  id: number;
  kind: string;
  title: string;
  /** 'county': a county-wide outlet, whose items the town's edition shows only when they name the town. */
  scope: "town" | "county";
  home_url: string | null;
  items_json: string;
  items_fetched_at: string | null;
}

/** A stored headline item (src/integrations/feeds/syndication.ts StoredHeadline). */
type StoredItem = Omit<Headline, "outlet">;

export interface FeedParts {
  events: FeedEvent[];
  /** Headlines the edition may show, newest first (an item dated after the edition's day sorts as undated). */
  candidates: Headline[];
  credits: SourceCredit[];
}

/** The feeds with their last good items, those still current at `now` (older ones serve no more). */
export function currentItems<F extends Pick<FeedRow, "items_json" | "items_fetched_at">>(feeds: F[], now: Date): Array<{ feed: F; items: unknown[] }> {
  const out: Array<{ feed: F; items: unknown[] }> = [];
  for (const feed of feeds) {
    if (!feed.items_fetched_at || now.getTime() - Date.parse(feed.items_fetched_at) > FEED_ITEMS_KEPT_MS) continue;
    try {
      const items: unknown = JSON.parse(feed.items_json);
      if (Array.isArray(items)) out.push({ feed, items });
    } catch {
      // A row this code did not write: skipped, the next fetch replaces it.
    }
  }
  return out;
}

/** The town's events, headline candidates and credits from its feeds' rows (in the feeds' order). */
export function feedParts(feeds: FeedRow[], place: { name: string; timezone: string }, date: string, now: Date): FeedParts {
  const events: FeedEvent[] = [];
  let candidates: Headline[] = [];
  const credits: SourceCredit[] = [];
  // A county-wide outlet's items reach the town only when they name it (src/core/sources/county-filter.ts).
  // Built on first use: most towns have no county-wide item, and the pattern costs more than the test.
  let matcher: ((text: string) => boolean) | undefined;
  const namesTown = (text: string) => (matcher ??= townNameMatcher(place.name))(text);
  for (const { feed, items } of currentItems(feeds, now)) {
    const countyWide = feed.scope === "county";
    if (feed.home_url) credits.push({ name: feed.title, url: feed.home_url, countyWide });
    if (feed.kind === "ical") {
      const own = feedEventsFor(items as CalendarOccurrence[], { feedId: feed.id, source: feed.title, timeZone: place.timezone, fromDate: date, days: FEED_EVENT_DAYS });
      events.push(...(countyWide ? own.filter((e) => namesTown(e.title) || (e.venue ? namesTown(e.venue) : false)) : own));
    } else {
      for (const h of items as StoredItem[]) {
        if (countyWide && !namesTown(h.title)) continue;
        candidates.push({ ...h, outlet: feed.title, ...(countyWide ? { countyWide } : {}) });
      }
    }
  }
  events.sort((a, b) => a.startsAt.slice(0, 10).localeCompare(b.startsAt.slice(0, 10)) || Number(b.allDay) - Number(a.allDay) || a.startsAt.localeCompare(b.startsAt) || a.title.localeCompare(b.title));
  candidates = candidates.filter((h) => !h.publishedAt || now.getTime() - Date.parse(h.publishedAt) <= HEADLINE_MAX_AGE_MS);
  // An item dated after the edition's day is a feed's clock error, not news from the future: it sorts as undated.
  const when = (h: Headline) => (h.publishedAt && localDate(new Date(h.publishedAt), place.timezone) <= date ? h.publishedAt : "");
  candidates.sort((a, b) => when(b).localeCompare(when(a)));
  return { events, candidates, credits };
}

/**
 * Up to MAX_HEADLINES candidates, in their order, one per key and per link, none an earlier edition
 * of the town showed (`shown`); the town's own outlets' first one leads, before a county-wide one's.
 */
export function newHeadlines(candidates: Headline[], shown: ReadonlySet<string>): Headline[] {
  const keys = new Set<string>();
  const urls = new Set<string>();
  const out: Headline[] = [];
  for (const h of candidates) {
    if (shown.has(h.key) || keys.has(h.key) || urls.has(h.url)) continue;
    keys.add(h.key);
    urls.add(h.url);
    out.push(h);
    if (out.length === MAX_HEADLINES) break;
  }
  // The first headline can lead the edition: the town's own outlets before a county-wide one's.
  const own = out.findIndex((h) => !h.countyWide);
  if (own > 0) out.unshift(...out.splice(own, 1));
  return out;
}
