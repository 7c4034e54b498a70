import type { PlaceResponse } from "../../contract/places.ts";
import { holidaysOn, upcomingHolidays } from "../../core/calendar/holidays.ts";
import { sunTimes } from "../../core/weather/sun.ts";
import { localClock } from "../../core/places/local-clock.ts";
import { isWellFormedSlug } from "../../contract/slug.ts";
import { placeMarkdown } from "../../publish/markdown-pages.ts";
import { createSiteData } from "../../site/views.ts";
import { findPlaceBySlug, type PlaceRow } from "../../store/places/places.ts";
import { censusOf, problemPlace, requireTown } from "./cities.ts";
import type { AppContext } from "../platform/context.ts";

/**
 * get_place (GET /api/place/{slug}): what the dataset and the clock say about any U.S. place, with a
 * newsletter or not, without asking any outside service (sun times are computed, not forecast).
 */
export function placeFacts(ctx: AppContext, place: PlaceRow): PlaceResponse {
  const clock = localClock(place.timezone, ctx.config.now());
  const { hasNewsletter, sellsListings, url } = problemPlace(ctx, place);
  const { sunrise, sunset, daylightMinutes } = sunTimes({ date: clock.localDate, latitude: place.latitude, longitude: place.longitude, timezone: place.timezone });
  return {
    slug: place.slug, name: place.name, state: place.state_name, county: place.county_name, placeType: place.place_type,
    latitude: place.latitude, longitude: place.longitude, hasNewsletter, sellsListings, url,
    ...clock,
    sun: { sunrise, sunset, daylightMinutes },
    holidays: { today: holidaysOn(clock.localDate, place.state_code), upcoming: upcomingHolidays(clock.localDate, place.state_code) },
    census: censusOf(place),
  };
}

/** Whether `slug` names a U.S. place, with editions or not (its page can be rendered on demand). */
export function isPlace(ctx: AppContext, slug: string): boolean {
  return isWellFormedSlug(slug) && findPlaceBySlug(ctx.db, slug) !== undefined;
}

/** The markdown twin of a place's page when none is published (a place without editions), or undefined for no place. */
export function placeTwin(ctx: AppContext, slug: string): string | undefined {
  const place = isWellFormedSlug(slug) ? findPlaceBySlug(ctx.db, slug) : undefined;
  if (!place) return undefined;
  const now = ctx.config.now();
  const view = createSiteData(ctx.db, ctx.config.baseUrl, { now: () => now }).city(slug);
  return view && placeMarkdown(ctx.config.baseUrl, view, placeFacts(ctx, place));
}

/** A published city twin with the town's clock of this instant added to its front matter. */
export function withLocalClock(ctx: AppContext, slug: string, markdown: string): string {
  const place = findPlaceBySlug(ctx.db, slug);
  if (!place || !markdown.startsWith("---\n")) return markdown;
  const c = localClock(place.timezone, ctx.config.now());
  return `---\ntimezone: ${c.timezone}\nlocal_date: ${c.localDate}\nweekday: ${c.weekday}\nlocal_time: "${c.localTime}"\n${markdown.slice(4)}`;
}

export function getPlace(ctx: AppContext, slug: string): PlaceResponse {
  return placeFacts(ctx, requireTown(ctx, slug));
}
