import { feedEventToCalendar } from "../../core/calendar/event-time.ts";
import { composeWeekly } from "../../core/edition/weekly.ts";
import { fiveAmInstant } from "../../core/readers/preferences.ts";
import { feedParts } from "../../core/sources/feed-parts.ts";
import { readStoredWeather } from "../../core/weather/snapshot.ts";
import { addDays, localDate } from "../../lib/time.ts";
import { listingsOf } from "../../site/city-listings.ts";
import { feedRowsOf, publishedOrdersOfTowns } from "../../store/morning/town-reads.ts";
import { enqueueWeekly, insertWeekly, weekEditionsOf, weekliesOf, weeklyReaderTowns, type WeeklyTown } from "../../store/morning/weekly.ts";
import type { AppContext } from "../platform/context.ts";

// The weekly email, made by the morning run once the day's editions are stored: for each town with
// weekly readers whose day it is there (in the town's own time zone) and whose edition of the day
// exists, the weekly is composed once from the week's editions and what is coming, stored, and queued
// for those readers at their delivery minutes. The sender delivers it like a digest.

/** The day of the week (0 = Sunday) of a YYYY-MM-DD date. */
const weekdayOf = (date: string) => new Date(`${date}T12:00:00Z`).getUTCDay();

/** A town whose weekly is due at `now`: some of its weekly readers' day is its local date, and none is stored yet. */
interface DueWeekly {
  town: WeeklyTown;
  date: string;
  weekday: number;
}

function dueWeeklies(ctx: AppContext, now: Date): DueWeekly[] {
  const candidates = weeklyReaderTowns(ctx.db).map((town) => {
    const date = localDate(now, town.timezone);
    return { town, date, weekday: weekdayOf(date) };
  }).filter((c) => c.town.weekdays.includes(c.weekday));
  const stored = weekliesOf(ctx.db, candidates.map((c) => ({ geoid: c.town.geoid, date: c.date })));
  return candidates.filter((c) => !stored.has(`${c.town.geoid} ${c.date}`));
}

/**
 * Composes, stores and queues the weeklies due at `now`; a town whose edition of the day is not
 * stored yet waits for a later run. Every kind of row is read in one statement for all the towns.
 * Returns how many weekly emails were queued.
 */
export function queueWeeklies(ctx: AppContext, now: Date): number {
  const due = dueWeeklies(ctx, now);
  if (due.length === 0) return 0;
  const geoids = due.map((d) => d.town.geoid);
  const editions = weekEditionsOf(ctx.db, due.map((d) => ({ geoid: d.town.geoid, from: addDays(d.date, -6), to: d.date })));
  const ready = due.filter((d) => editions.get(d.town.geoid)?.[0]?.date === d.date);
  if (ready.length === 0) return 0;
  const feeds = feedRowsOf(ctx.db, geoids, now.toISOString());
  const orders = publishedOrdersOfTowns(ctx.db, geoids);
  const nowIso = now.toISOString();
  let queued = 0;
  for (const { town, date, weekday } of ready) {
    try {
      const week = editions.get(town.geoid)!;
      const listings = listingsOf(orders.get(town.geoid) ?? [], town, now);
      const parts = feedParts(feeds.get(town.geoid) ?? [], town, date, now);
      const composed = composeWeekly({
        town, date, baseUrl: ctx.config.baseUrl,
        editions: week.map((e) => ({ date: e.date, subject: e.subject, markdown: e.markdown })),
        forecast: readStoredWeather(week[0]!.weather_json).daily,
        // As in the daily email: the featured listings and the events of the town's public calendars.
        events: [...listings.events.filter((e) => e.featured), ...parts.events.map(feedEventToCalendar)],
        directory: listings.directory,
      });
      const fiveAm = fiveAmInstant(date, town.timezone);
      const n = ctx.db.transaction(() => {
        const id = insertWeekly(ctx.db, { placeGeoid: town.geoid, date, subject: composed.subject, markdown: composed.markdown, html: composed.html, editions: composed.editions }, nowIso);
        return id === undefined ? 0 : enqueueWeekly(ctx.db, { id, placeGeoid: town.geoid, weekday }, fiveAm, now.getTime(), nowIso);
      }).immediate();
      ctx.log.info({ place: town.geoid, date, queued: n }, "weekly queued");
      queued += n;
    } catch (err) {
      ctx.log.error({ err, place: town.geoid, date }, "composing the weekly failed; the next run tries again");
    }
  }
  return queued;
}
