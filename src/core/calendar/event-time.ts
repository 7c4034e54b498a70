// When and where an event happens, in the words readers use ("Wed, Nov 25, 7:00 PM at White Pine
// County Library"), never an ISO string. Light on purpose: the site's views use it too.
import type { CalendarEvent } from "../../contract/resources.ts";
import { safeUrl } from "../../lib/safe-url.ts";
import { localWallTime } from "../../lib/time.ts";
import type { FeedEvent } from "./feed-event.ts";

const SHORT_DAY = new Intl.DateTimeFormat("en-US", { weekday: "short", month: "short", day: "numeric", timeZone: "UTC" });

/** "Wed, Nov 25" for a YYYY-MM-DD date (a calendar day, not an instant). */
export function shortDay(date: string): string {
  return SHORT_DAY.format(new Date(`${date}T12:00:00Z`));
}

/** "7:00 PM" for "19:00"; "noon" and "midnight" are clearer than 12:00 PM and 12:00 AM. */
export function clockWords(hhmm: string): string {
  const [h, m] = hhmm.split(":").map(Number) as [number, number];
  if (m === 0 && h === 12) return "noon";
  if (m === 0 && h === 0) return "midnight";
  return `${h % 12 === 0 ? 12 : h % 12}:${String(m).padStart(2, "0")} ${h < 12 ? "AM" : "PM"}`;
}

/** A local wall time, `YYYY-MM-DD` or `YYYY-MM-DDTHH:mm[:ss]`, split into its date and its clock time. */
function parts(local: string): { date: string; time: string | null } | null {
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}))?/.exec(local);
  return m ? { date: m[1]!, time: m[2] ?? null } : null;
}

export interface EventWhen {
  startsAt: string;
  endsAt?: string | null;
  allDay?: boolean;
  venue?: string | null;
}

/**
 * "Wed, Nov 25, 7:00 PM at White Pine County Library" (or without the day, "7:00 PM at ..."), "all day",
 * "7:00 to 9:00 PM", "Wed, Nov 25 to Fri, Nov 27". Times are the town's local wall times as stored.
 */
export function eventWhenWords(e: EventWhen, opts: { withDay: boolean }): string {
  const start = parts(e.startsAt);
  if (!start) return e.venue ? `at ${e.venue}` : "";
  const end = e.endsAt ? parts(e.endsAt) : null;
  const words: string[] = [];
  if (opts.withDay) words.push(shortDay(start.date));
  const allDay = e.allDay || !start.time;
  if (allDay) {
    // `endsAt` of an all-day event is its last day (feeds' exclusive DTEND is already taken back a day).
    const lastDay = end && end.date > start.date ? end.date : null;
    if (lastDay && lastDay > start.date) words.push(`${opts.withDay ? "to " : "until "}${shortDay(lastDay)}`);
    else words.push("all day");
  } else {
    const from = clockWords(start.time!);
    if (end?.time && end.date === start.date && end.time !== start.time) words.push(`${from} to ${clockWords(end.time)}`);
    else words.push(from);
  }
  let out = words.join(opts.withDay && !allDay ? ", " : " ");
  if (opts.withDay && allDay && words[1] === "all day") out = `${words[0]}, all day`;
  return e.venue ? `${out} at ${e.venue}` : out;
}

/** "5:00 PM Wed, Nov 25" for an instant, in the town's timezone (alert end times). */
export function instantWords(iso: string, timeZone: string): string {
  const wall = localWallTime(new Date(iso), timeZone);
  return `${clockWords(wall.slice(11, 16))} ${shortDay(wall.slice(0, 10))}`;
}

/** An event from one of the town's public calendars as the town calendar lists it: not sponsored, its source named. */
export function feedEventToCalendar(e: FeedEvent): CalendarEvent {
  return {
    id: e.id, title: e.title, description: e.description, url: safeUrl(e.url), startsAt: e.startsAt,
    ...(e.endsAt ? { endsAt: e.endsAt } : {}), ...(e.venue ? { venue: e.venue } : {}),
    featured: false, sponsored: false, source: e.source, allDay: e.allDay,
    ...(safeUrl(e.agendaUrl) ? { agendaUrl: safeUrl(e.agendaUrl)! } : {}),
  };
}
