import type { CalendarEvent, DirectoryListing } from "../contract/resources.ts";
import type { DB } from "../store/db.ts";
import type { PlaceRow } from "../store/places.ts";

export interface CityListings {
  /** Upcoming events on the town's calendar, soonest first (featured first within a day). */
  events: CalendarEvent[];
  /** Current business directory listings, featured first. */
  directory: DirectoryListing[];
}

/**
 * The one place the town's calendar and directory enter the city view (its page and its markdown
 * twin render whatever this returns, and nothing when it is empty). Listings arrive with the
 * commerce work: the listings store plugs in here. Until then every town's lists are empty.
 */
export function cityListings(_db: DB, _place: PlaceRow): CityListings {
  return { events: [], directory: [] };
}
