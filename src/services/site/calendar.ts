import { EVENTS_DEFAULT_DAYS, EVENTS_MAX_DAYS, type EventsResponse } from "../../contract/events.ts";
import { AppError } from "../../core/errors.ts";
import { addDays, localDate } from "../../lib/time.ts";
import { townIcs } from "../../core/calendar/town-ics.ts";
import { townCalendar } from "../../site/city-listings.ts";
import { requireNewsletterTown, requireTown, sellsListings } from "../places/cities.ts";
import type { AppContext } from "../platform/context.ts";

// A town's public calendar for readers' calendar apps and for agents: the same events as its page
// and edition (src/site/city-listings.ts), as JSON over a range of its local dates and as iCalendar.
// Read as of now: a listing whose run is over is left out before the sweep marks it ended.

/** The iCalendar feed's window around the town's today: a month back, three months ahead. */
export const ICS_DAYS_BACK = 30;
export const ICS_DAYS_AHEAD = 90;

/**
 * A town whose calendar exists: one that takes listings (a newsletter, or an operator's lease before
 * its first edition: what was sold there must be findable); any other place answers as requireNewsletterTown does.
 */
function requireCalendarTown(ctx: AppContext, slug: string) {
  const place = requireTown(ctx, slug);
  return sellsListings(ctx, place) ? place : requireNewsletterTown(ctx, slug);
}

const daysBetween = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);

export function getEvents(ctx: AppContext, input: { slug: string; from?: string; to?: string }): EventsResponse {
  const place = requireCalendarTown(ctx, input.slug);
  const now = ctx.config.now();
  const today = localDate(now, place.timezone);
  const from = input.from ?? today;
  const to = input.to ?? addDays(from, EVENTS_DEFAULT_DAYS - 1);
  if (to < from) throw new AppError("validation_error", `The range ends (${to}) before it starts (${from}).`, { issues: [{ path: "to", message: "must not be before `from`" }] });
  if (daysBetween(from, to) + 1 > EVENTS_MAX_DAYS) {
    throw new AppError("validation_error", `The range ${from} to ${to} is ${daysBetween(from, to) + 1} days; at most ${EVENTS_MAX_DAYS} are read at once.`, { issues: [{ path: "to", message: `must be at most ${EVENTS_MAX_DAYS - 1} days after \`from\`` }] });
  }
  return {
    slug: place.slug, city: place.name, state: place.state_name, timeZone: place.timezone, today, from, to,
    events: townCalendar(ctx.db, place, now, { from, to }).map((d) => d.event),
    calendarUrl: `${ctx.config.baseUrl}/${place.slug}/calendar.ics`,
  };
}

/** `/{slug}/calendar.ics`: the town's calendar from a month back to three months ahead. */
export function townCalendarIcs(ctx: AppContext, slug: string): string {
  const place = requireCalendarTown(ctx, slug);
  const now = ctx.config.now();
  const today = localDate(now, place.timezone);
  const from = addDays(today, -ICS_DAYS_BACK);
  const to = addDays(today, ICS_DAYS_AHEAD);
  return townIcs({
    baseUrl: ctx.config.baseUrl, slug: place.slug, city: place.name, state: place.state_name, timeZone: place.timezone, from, to,
    events: townCalendar(ctx.db, place, now, { from, to }),
  });
}
