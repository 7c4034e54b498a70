import type { CalendarEvent, DirectoryListing } from "../contract/resources.ts";
import { feedEventToCalendar } from "../core/calendar/event-time.ts";
import { safeUrl } from "../lib/safe-url.ts";
import { feedEventsFor, type CalendarOccurrence } from "../core/calendar/calendar-events.ts";
import { currentItems } from "../core/sources/feed-parts.ts";
import { feedItemsOfPlace } from "../store/sources/feeds.ts";
import { FEED_EVENT_DAYS } from "../core/sources/town-sources.ts";
import { localDate, localWallTime } from "../lib/time.ts";
import type { DB } from "../store/db.ts";
import { publishedOrdersOf, type OrderRow } from "../store/commerce/orders.ts";
import type { PlaceRow } from "../store/places/places.ts";

export interface CityListings {
  /**
   * Upcoming events on the town's calendar, soonest first (featured first within a day): its listings
   * (free, standard, featured) and the coming week of its public iCalendar feeds.
   */
  events: CalendarEvent[];
  /** Current business directory listings, featured first. */
  directory: DirectoryListing[];
}

// The one place the town's calendar and directory are read: the city page and its markdown twin
// (src/site/views.ts), /api/city/{slug} and the daily email all show what this returns.

function toEvent(o: OrderRow): CalendarEvent {
  return {
    id: o.id, title: o.title, description: o.description, url: safeUrl(o.url), startsAt: o.starts_at ?? "",
    featured: o.tier === "featured", sponsored: o.tier !== "free", ...(o.ends_at ? { endsAt: o.ends_at } : {}), ...(o.venue ? { venue: o.venue } : {}),
  };
}

function toDirectory(o: OrderRow): DirectoryListing {
  return {
    id: o.id, title: o.title, description: o.description, url: safeUrl(o.url), featured: o.tier === "featured", sponsored: o.tier !== "free",
    endsOn: (o.run_ends_at ?? "").slice(0, 10), ...(o.address ? { address: o.address } : {}), ...(o.category ? { category: o.category } : {}),
  };
}

/** The coming week of the town's public calendars, from the items its feeds last fetched. */
function feedCalendar(db: DB, place: Pick<PlaceRow, "geoid" | "timezone">, onDate: string, now: Date): CalendarEvent[] {
  const out: CalendarEvent[] = [];
  // The same window and staleness as the morning's (src/services/sources/town-sources.ts).
  for (const { feed, items } of currentItems(feedItemsOfPlace(db, place.geoid, now.toISOString()), now)) {
    if (feed.kind !== "ical") continue;
    const events = feedEventsFor(items as CalendarOccurrence[], { feedId: feed.id, source: feed.title, timeZone: place.timezone, fromDate: onDate, days: FEED_EVENT_DAYS });
    out.push(...events.map(feedEventToCalendar));
  }
  return out;
}

/**
 * A town's calendar and directory as readers see them at `now` (events from the town's own date on):
 * upcoming events soonest first (featured first within a day), the listings' and the town's public
 * calendars' together, and current businesses, featured first. Listings whose run is over are left
 * out even before the sweep marks them ended. `feeds: false` leaves the public calendars out (the
 * morning reads them with the town's other sources).
 */
export function cityListings(db: DB, place: Pick<PlaceRow, "geoid" | "timezone">, now: Date, options: { feeds?: boolean } = {}): CityListings {
  const feeds = options.feeds === false ? [] : feedCalendar(db, place, localDate(now, place.timezone), now);
  return listingsOf(publishedOrdersOf(db, place.geoid), place, now, feeds);
}

/** `cityListings` from the town's published orders (the morning reads many towns' at once) and its feeds' events. */
export function listingsOf(orders: OrderRow[], place: Pick<PlaceRow, "timezone">, now: Date, feedEvents: CalendarEvent[] = []): CityListings {
  const onDate = localDate(now, place.timezone);
  const nowIso = now.toISOString();
  const rows = orders.filter((o) => !o.run_ends_at || o.run_ends_at > nowIso);
  const events = [...rows.filter((o) => o.product === "event" && (o.ends_at ?? o.starts_at ?? "").slice(0, 10) >= onDate).map(toEvent), ...feedEvents]
    .sort((a, b) => a.startsAt.slice(0, 10).localeCompare(b.startsAt.slice(0, 10)) || Number(b.featured) - Number(a.featured) || a.startsAt.localeCompare(b.startsAt) || a.id.localeCompare(b.id));
  const directory = rows.filter((o) => o.product === "business").map(toDirectory)
    .sort((a, b) => Number(b.featured) - Number(a.featured) || a.title.localeCompare(b.title) || a.id.localeCompare(b.id));
  return { events, directory };
}


/** One event of a town's calendar with when its information last changed (iCalendar's DTSTAMP). */
export interface DatedCalendarEvent {
  event: CalendarEvent;
  /** ISO instant: the listing's publication, or the feed's last fetch. */
  stamp: string;
}

/** A listing's start or end (`YYYY-MM-DD`, local `YYYY-MM-DDTHH:mm[:ss]`, or with an offset) as the town's wall time. */
export function listingLocalTime(value: string, timeZone: string): string {
  if (/T.*(Z|[+-]\d{2}:?\d{2})$/i.test(value)) return localWallTime(new Date(value), timeZone);
  return value.length > 16 ? value.slice(0, 16) : value;
}

/**
 * The town's public calendar over its local days [from, to] (both included): the published event
 * listings and the events of its public iCalendar feeds (as far ahead as their last fetch expanded
 * them, 16 days), soonest first, featured first within a day. Times are the town's wall time; an
 * event counts while it runs (a multi-day one from its first day to its last).
 */
export function townCalendar(db: DB, place: Pick<PlaceRow, "geoid" | "timezone">, now: Date, range: { from: string; to: string }): DatedCalendarEvent[] {
  const tz = place.timezone;
  const nowIso = now.toISOString();
  const out: DatedCalendarEvent[] = [];
  for (const o of publishedOrdersOf(db, place.geoid)) {
    if (o.product !== "event" || !o.starts_at || (o.run_ends_at && o.run_ends_at <= nowIso)) continue;
    const startsAt = listingLocalTime(o.starts_at, tz);
    const endsAt = o.ends_at ? listingLocalTime(o.ends_at, tz) : undefined;
    if (startsAt.slice(0, 10) > range.to || (endsAt ?? startsAt).slice(0, 10) < range.from) continue;
    out.push({ event: { ...toEvent(o), startsAt, ...(endsAt ? { endsAt } : {}), allDay: startsAt.length === 10 }, stamp: o.published_at ?? o.updated_at });
  }
  const days = Math.round((Date.parse(`${range.to}T00:00:00Z`) - Date.parse(`${range.from}T00:00:00Z`)) / 86_400_000) + 1;
  for (const { feed, items } of currentItems(feedItemsOfPlace(db, place.geoid, now.toISOString()), now)) {
    if (feed.kind !== "ical") continue;
    const events = feedEventsFor(items as CalendarOccurrence[], { feedId: feed.id, source: feed.title ?? "", timeZone: tz, fromDate: range.from, days });
    // feedEventsFor leaves out timed events that began before `from`; a multi-day all-day one still running is kept.
    out.push(...events.map((e) => ({ event: feedEventToCalendar(e), stamp: feed.items_fetched_at ?? nowIso })));
  }
  return out.sort((a, b) => a.event.startsAt.slice(0, 10).localeCompare(b.event.startsAt.slice(0, 10)) || Number(b.event.featured) - Number(a.event.featured)
    || a.event.startsAt.localeCompare(b.event.startsAt) || a.event.id.localeCompare(b.event.id));
}
