import crypto from "node:crypto";
import ical, { ICalEventTransparency, type ICalEventData } from "ical-generator";
import moment from "moment-timezone";
import type { CalendarEvent } from "../../contract/resources.ts";
import { addDays } from "../../lib/time.ts";
import { vtimezone } from "./vtimezone.ts";

// A town's public calendar as iCalendar (RFC 5545), written with ical-generator: every event in the
// town's zone (DTSTART;TZID=... with a VTIMEZONE), all-day ones as dates; paid listings say
// Sponsored (CATEGORIES and the description's first line). Pure: the same events give the same
// bytes (DTSTAMP is when the event's information last changed, not the time of the request), so
// the calendar's ETag changes only when the calendar does.

export interface TownIcsInput {
  baseUrl: string;
  slug: string;
  city: string;
  state: string;
  timeZone: string;
  /** The town's local dates the calendar covers (for the VTIMEZONE's years). */
  from: string;
  to: string;
  events: Array<{ event: CalendarEvent; stamp: string }>;
}

/** A UID that stays the same across fetches and is unique to the event (RFC 5545 section 3.8.4.7). */
function uidOf(e: CalendarEvent, host: string): string {
  if (e.id.startsWith("lo_")) return `${e.id}@${host}`;
  return `feed-${crypto.createHash("sha256").update(e.id).digest("hex").slice(0, 24)}@${host}`;
}

function descriptionOf(e: CalendarEvent): string {
  const lines: string[] = [];
  if (e.sponsored) lines.push(e.featured ? "Sponsored (featured listing)" : "Sponsored listing");
  else if (e.source) lines.push(`From ${e.source}'s public calendar`);
  if (e.description) lines.push(e.description);
  if (e.url) lines.push(e.url);
  return lines.join("\n");
}

// Dates go in as moment-timezone objects in the town's zone: given a native Date and a zone,
// ical-generator formats the Date's fields in the process's own zone, not the town's.
function eventData(e: CalendarEvent, stamp: string, timeZone: string, host: string): ICalEventData {
  const allDay = e.allDay ?? e.startsAt.length === 10;
  const common: Omit<ICalEventData, "start"> = {
    id: uidOf(e, host),
    stamp: new Date(stamp),
    summary: e.title,
    description: descriptionOf(e),
    location: e.venue ?? null,
    url: e.url,
    categories: e.sponsored ? [{ name: "Sponsored" }, ...(e.featured ? [{ name: "Featured" }] : [])] : [],
    // A town's events do not make the subscriber busy.
    transparency: ICalEventTransparency.TRANSPARENT,
    timezone: timeZone,
  };
  if (allDay) {
    const first = e.startsAt.slice(0, 10);
    const last = e.endsAt?.slice(0, 10);
    // DTEND of a date is exclusive: the day after the last day.
    return { ...common, allDay: true, start: moment.tz(first, timeZone), end: last && last > first ? moment.tz(addDays(last, 1), timeZone) : null };
  }
  const end = e.endsAt && e.endsAt.length > 10 && e.endsAt > e.startsAt ? moment.tz(e.endsAt, timeZone) : null;
  return { ...common, start: moment.tz(e.startsAt, timeZone), end };
}

export function townIcs(input: TownIcsInput): string {
  const host = new URL(input.baseUrl).hostname;
  const calendar = ical({
    name: `${input.city}, ${input.state}: events (citydaily)`,
    description: `Events in ${input.city}, ${input.state}: listings and the town's public calendars, from citydaily. Sponsored events are paid listings.`,
    prodId: { company: "citydaily", product: "town-calendar", language: "EN" },
    url: `${input.baseUrl}/${input.slug}`,
    // The generator writes a VTIMEZONE for the zone the events name. No calendar-wide zone name:
    // ical-generator would then write DTSTAMP in local time, where RFC 5545 wants UTC.
    timezone: { name: null, generator: (zone) => vtimezone(zone, Number(input.from.slice(0, 4)), Number(input.to.slice(0, 4))) },
    x: { "X-WR-TIMEZONE": input.timeZone },
    // Calendar apps that honour it refresh hourly (X-PUBLISHED-TTL, REFRESH-INTERVAL).
    ttl: 3600,
  });
  for (const { event, stamp } of input.events) calendar.createEvent(eventData(event, stamp, input.timeZone, host));
  return calendar.toString();
}
