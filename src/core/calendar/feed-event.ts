// An event as a town's public calendar feed gives it, before the edition words it.

/** One occurrence of an event from a town's public iCalendar feed (recurrences already expanded). */
export interface FeedEvent {
  /** Stable per occurrence: the feed's id, the UID and the occurrence's start. */
  id: string;
  title: string;
  description: string;
  url: string | null;
  /** Local wall time in the town's timezone: `YYYY-MM-DD` (all-day) or `YYYY-MM-DDTHH:mm`. */
  startsAt: string;
  endsAt: string | null;
  allDay: boolean;
  /** LOCATION, when given. */
  venue: string | null;
  /** Who publishes it: the feed's title ("White Pine County Library"). */
  source: string;
  /** A public meeting's agenda (council meetings from Legistar), when published. */
  agendaUrl?: string | null;
}
