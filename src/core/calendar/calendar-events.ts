import { addDays, localWallTime } from "../../lib/time.ts";
import type { FeedEvent } from "./feed-event.ts";

// A town's days of a public calendar, from the occurrences its feed was parsed into
// (src/integrations/feeds/ical.ts): pure, so the site's render worker needs no iCalendar parser.

/** One occurrence as stored with the feed, independent of any town. */
export interface CalendarOccurrence {
  /** UID and the occurrence's start: stable across fetches. */
  key: string;
  title: string;
  description: string;
  url: string | null;
  /** A public meeting's agenda (Legistar's EventAgendaFile), when published. */
  agendaUrl?: string | null;
  venue: string | null;
  allDay: boolean;
  /** `YYYY-MM-DD` (all-day), an ISO instant ending in `Z`, or floating wall time `YYYY-MM-DDTHH:mm` (no zone in the feed). */
  start: string;
  end: string | null;
}

/** A stored start or end as the town's local wall time (`YYYY-MM-DD` for all-day). */
export function toLocal(value: string, timeZone: string): string {
  return value.endsWith("Z") ? localWallTime(new Date(value), timeZone) : value;
}

/**
 * The occurrences that happen in the town's days [fromDate, fromDate + days), as FeedEvents in its
 * local time, earliest first (all-day events first on their day).
 */
export function feedEventsFor(occurrences: CalendarOccurrence[], options: { feedId: number; source: string; timeZone: string; fromDate: string; days: number }): FeedEvent[] {
  const toDate = addDays(options.fromDate, options.days);
  const events: FeedEvent[] = [];
  for (const o of occurrences) {
    const startsAt = toLocal(o.start, options.timeZone);
    let endsAt = o.end ? toLocal(o.end, options.timeZone) : null;
    // DTEND of an all-day event is exclusive: a one-day event ends the day it starts.
    if (o.allDay && endsAt) {
      endsAt = addDays(endsAt, -1);
      if (endsAt <= startsAt) endsAt = null;
    }
    const lastDay = (endsAt ?? startsAt).slice(0, 10);
    // An event counts from the day it starts; a multi-day one also while it runs.
    if (startsAt.slice(0, 10) >= toDate || lastDay < options.fromDate) continue;
    if (!o.allDay && startsAt.slice(0, 10) < options.fromDate) continue;
    events.push({
      id: `${options.feedId}:${o.key}`,
      title: o.title,
      description: o.description,
      url: o.url,
      startsAt,
      endsAt,
      allDay: o.allDay,
      venue: o.venue,
      source: options.source,
      ...(o.agendaUrl ? { agendaUrl: o.agendaUrl } : {}),
    });
  }
  return events.sort((a, b) => a.startsAt.slice(0, 10).localeCompare(b.startsAt.slice(0, 10)) || Number(b.allDay) - Number(a.allDay) || a.startsAt.localeCompare(b.startsAt) || a.title.localeCompare(b.title));
}
