import type { CalendarEvent, DirectoryListing } from "../contract/resources.ts";
import { feedEventToCalendar } from "../core/event-time.ts";
import { safeUrl } from "../core/safe-url.ts";
import { feedEventsFor, type CalendarOccurrence } from "../core/calendar-events.ts";
import { currentFeedItems } from "../store/feeds.ts";
import { FEED_EVENT_DAYS } from "../core/town-sources.ts";
import { localDate } from "../core/time.ts";
import type { DB } from "../store/db.ts";
import { publishedOrdersOf, type OrderRow } from "../store/orders.ts";
import type { PlaceRow } from "../store/places.ts";

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
  // The same window and staleness as the morning's (src/services/town-sources.ts).
  for (const { feed, items } of currentFeedItems(db, place.geoid, now)) {
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
  const geoid = place.geoid;
  const onDate = localDate(now, place.timezone);
  const nowIso = now.toISOString();
  const rows = publishedOrdersOf(db, geoid).filter((o) => !o.run_ends_at || o.run_ends_at > nowIso);
  const events = [...rows.filter((o) => o.product === "event" && (o.ends_at ?? o.starts_at ?? "").slice(0, 10) >= onDate).map(toEvent), ...(options.feeds === false ? [] : feedCalendar(db, place, onDate, now))]
    .sort((a, b) => a.startsAt.slice(0, 10).localeCompare(b.startsAt.slice(0, 10)) || Number(b.featured) - Number(a.featured) || a.startsAt.localeCompare(b.startsAt) || a.id.localeCompare(b.id));
  const directory = rows.filter((o) => o.product === "business").map(toDirectory)
    .sort((a, b) => Number(b.featured) - Number(a.featured) || a.title.localeCompare(b.title) || a.id.localeCompare(b.id));
  return { events, directory };
}

