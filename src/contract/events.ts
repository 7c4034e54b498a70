import { z } from "zod";
import { IsoDate, Slug } from "./common.ts";
import { CalendarEvent } from "./resources.ts";

// A town's public calendar over a range of its local dates (GET /api/events/{slug}, get_events),
// the same events as its page, its edition and /{slug}/calendar.ics.

/** The longest range one request reads, in days (both ends included). */
export const EVENTS_MAX_DAYS = 62;
/** Without `to`: `from` and the 7 days after it. */
export const EVENTS_DEFAULT_DAYS = 8;

export const EventsQuery = z.object({
  from: IsoDate.optional().meta({ description: "First day, YYYY-MM-DD in the town's own time zone; default: the town's today", examples: ["2026-11-28"] }),
  to: IsoDate.optional().meta({ description: `Last day (included), YYYY-MM-DD in the town's time zone; default: \`from\` plus 7 days. At most ${EVENTS_MAX_DAYS} days from \`from\` to \`to\`, and not before \`from\``, examples: ["2026-11-28"] }),
});

export const EventsResponse = z.object({
  slug: Slug,
  city: z.string(),
  state: z.string(),
  timeZone: z.string().meta({ description: "The town's IANA time zone: every date and time of the answer is its local wall time", examples: ["America/Los_Angeles"] }),
  today: IsoDate.meta({ description: "The town's local date now" }),
  from: IsoDate.meta({ description: "First day of the range (local)" }),
  to: IsoDate.meta({ description: "Last day of the range (local, included)" }),
  events: z.array(CalendarEvent).meta({ description: "Events on the town's calendar on any day of the range (a multi-day event while it runs), soonest first, featured first within a day: listings (`sponsored` for paid ones) and the town's public iCalendar feeds (`source`), the latter as far ahead as their last fetch reached (about two weeks)" }),
  calendarUrl: z.url().meta({ description: "The same calendar as iCalendar (RFC 5545) to subscribe to (`/{slug}/calendar.ics`; `webcal:` works too)" }),
}).meta({ id: "EventsResponse" });
export type EventsResponse = z.infer<typeof EventsResponse>;
