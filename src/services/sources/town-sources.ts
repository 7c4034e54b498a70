import { limiter } from "../../lib/limiter.ts";
import { activeAlerts } from "../../core/hazards/alert-section.ts";
import { localDate } from "../../lib/time.ts";
import type { FeedEvent } from "../../core/calendar/feed-event.ts";
import { FEED_EVENT_DAYS, type Headline, type SourceCredit, type TownSources, type WeatherAlert } from "../../core/sources/town-sources.ts";
import { townNameMatcher } from "../../core/sources/county-filter.ts";
import { feedEventsFor, type CalendarOccurrence } from "../../core/calendar/calendar-events.ts";
import type { StoredHeadline } from "../../integrations/feeds/syndication.ts";
import { SourceError } from "../../integrations/http-json.ts";
import {
  currentFeedItems, headlinesShownBefore, recordFetchFailure, recordFetchOk, recordNotModified, sourceIdsByPlace, sourcesOfPlaces,
  type FeedSourceRow,
} from "../../store/sources/feeds.ts";
import type { PlaceRow } from "../../store/places/places.ts";
import type { AppContext } from "../platform/context.ts";
import { parseFeedBody } from "./feeds.ts";

// What public sources add to a town's edition (the TownSources seam of src/core/sources/town-sources.ts):
// events and headlines from the town's feeds, which the morning refreshes once per address before
// (and while) composing. The morning's alerts and air quality come from its run snapshot
// (services/sources/run-sources.ts); `townSources` asks NWS and Open-Meteo for one town live. Nothing here throws into the
// morning: a source that is down, slow or wrong gives nothing, within its time limit.

/** A source attempted this recently is not fetched again: once a morning. */
export const FEED_RECHECK_MS = 12 * 3_600_000;
/** Consecutive failed mornings after which a feed is marked failing (shown so on the desk). */
export const FEED_FAILING_AFTER = 3;
/** Headlines per edition. */
export const MAX_HEADLINES = 5;
/** A dated item older than this is not news (a feed just added would otherwise drip its archive out, 5 a day). */
export const HEADLINE_MAX_AGE_MS = 7 * 86_400_000;
/**
 * How long a shown headline is remembered at least (`forgetHeadlinesShown`): well past the week a dated
 * one may be offered, and long enough for a feed that briefly served a short list to bring its items back.
 */
export const HEADLINES_REMEMBERED_MS = 30 * 86_400_000;
/** Feed fetches in flight during a refresh, all hosts together (each host has FEED_HOST_CONCURRENCY). */
const REFRESH_CONCURRENCY = 32;
/**
 * The whole refresh gets this many feed time limits: fetches still queued behind slow hosts then are
 * not made (the towns use their stored items; the feed counts no failure), so a pile of slow feeds
 * cannot hold the morning longer than that.
 */
export const REFRESH_BUDGET_FACTOR = 4;

export interface RefreshSummary {
  /** Distinct feed addresses of the due towns. */
  sources: number;
  fetched: number;
  notModified: number;
  failed: number;
  /** Already fetched this morning (by an earlier run), or not fetched because the run was stopped. */
  skipped: number;
  ms: number;
}

export interface FeedRefresh {
  /** Resolves when every fetch of the refresh is over (never rejects). */
  done: Promise<RefreshSummary>;
  /** Resolves when the fetches of this town's feeds are over (never rejects). */
  ready(geoid: string): Promise<void>;
}

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/** Fetches one source with its validators and records the outcome; never throws. */
async function refreshSource(ctx: AppContext, source: FeedSourceRow, now: Date, signal: AbortSignal | undefined, summary: RefreshSummary): Promise<void> {
  const at = now.toISOString();
  try {
    if (signal?.aborted) throw new SourceError("aborted", "the morning run was stopped, or the refresh's time was up");
    const r = await ctx.sources.feeds.fetch(source.url, { etag: source.etag, lastModified: source.last_modified }, signal);
    if (r.status === "not-modified") {
      // An unchanged calendar still moves on: its recurrences are expanded again over today's window.
      const again = source.kind === "ical" && source.body ? JSON.stringify(parseFeedBody(source.body, source.url, now).items) : undefined;
      recordNotModified(ctx.db, source.id, at, again);
      summary.notModified++;
      return;
    }
    const parsed = parseFeedBody(r.body, r.url, now);
    recordFetchOk(ctx.db, source.id, { kind: parsed.kind, title: parsed.title, itemsJson: JSON.stringify(parsed.items), body: parsed.kind === "ical" ? r.body : null, etag: r.etag, lastModified: r.lastModified }, at);
    summary.fetched++;
  } catch (err) {
    // A run stopped early (shutdown) says nothing about the feed: the next run tries it as if untouched.
    if (err instanceof SourceError && err.kind === "aborted") {
      summary.skipped++;
      return;
    }
    summary.failed++;
    const reason = err instanceof SourceError ? err.message : `unexpected: ${(err as Error).message}`;
    try {
      recordFetchFailure(ctx.db, source.id, reason, at, FEED_FAILING_AFTER);
    } catch (dbErr) {
      ctx.log.error({ err: dbErr, source: source.id }, "recording a feed failure failed");
    }
    ctx.log.warn({ source: source.id, url: source.url, reason, failures: source.consecutive_failures + 1 }, "feed fetch failed; its last good items are kept");
  }
}

/**
 * Starts the morning's feed refresh for these towns: each distinct address once (shared by the
 * towns that use it), not again if this morning already tried it, concurrently with a per-host
 * limit, stopping when `signal` aborts or the refresh's budget (REFRESH_BUDGET_FACTOR feed time
 * limits) is spent. A town's composition awaits `ready(geoid)`:
 * only its own feeds, so composing runs alongside fetching.
 */
export function startFeedRefresh(ctx: AppContext, geoids: string[], options: { now: Date; signal?: AbortSignal }): FeedRefresh {
  const started = performance.now();
  const { now } = options;
  const budget = AbortSignal.timeout(ctx.config.sources.feedTimeoutMs * REFRESH_BUDGET_FACTOR);
  const signal = options.signal ? AbortSignal.any([options.signal, budget]) : budget;
  const all = sourcesOfPlaces(ctx.db, geoids);
  const summary: RefreshSummary = { sources: all.length, fetched: 0, notModified: 0, failed: 0, skipped: 0, ms: 0 };
  const due = all.filter((s) => !s.checked_at || now.getTime() - Date.parse(s.checked_at) >= FEED_RECHECK_MS || Date.parse(s.checked_at) > now.getTime());
  summary.skipped = all.length - due.length;
  const overall = limiter(REFRESH_CONCURRENCY);
  const perHost = new Map<string, ReturnType<typeof limiter>>();
  const bySource = new Map<number, Promise<void>>();
  for (const source of due) {
    const host = hostOf(source.url);
    let lane = perHost.get(host);
    if (!lane) perHost.set(host, (lane = limiter(ctx.config.sources.feedHostConcurrency)));
    bySource.set(source.id, lane(() => overall(() => refreshSource(ctx, source, now, signal, summary))));
  }
  const byPlace = due.length > 0 ? sourceIdsByPlace(ctx.db, geoids) : new Map<string, number[]>();
  const done = Promise.all(bySource.values()).then(() => {
    summary.ms = Math.round(performance.now() - started);
    if (summary.sources > 0) ctx.log.info({ ...summary }, "feeds refreshed");
    return summary;
  });
  return {
    done,
    ready: async (geoid) => {
      await Promise.all((byPlace.get(geoid) ?? []).map((id) => bySource.get(id)));
    },
  };
}

/**
 * Everything public sources give one town's edition of `date`: NWS alerts and air quality (fetched
 * now, each within its timeout; down means none), events of its 7 days from its calendars, and up to
 * 5 headlines no earlier edition of the town showed, newest first. Feeds whose last good items are
 * older than a day give nothing.
 */
export async function townSources(ctx: AppContext, place: PlaceRow, date: string, options: { now?: Date; signal?: AbortSignal } = {}): Promise<TownSources> {
  const now = options.now ?? ctx.config.now();
  const point = { latitude: place.latitude, longitude: place.longitude };
  const quiet = <T>(what: string, fallback: T) => (err: unknown): T => {
    ctx.log.warn({ reason: (err as Error).message, slug: place.slug, date }, `${what} unavailable; the edition goes without`);
    return fallback;
  };
  const [alerts, airQuality] = await Promise.all([
    ctx.sources.alerts.active(point, options.signal).then((list) => activeAlerts(list, now.toISOString()), quiet("weather alerts", [] as WeatherAlert[])),
    ctx.sources.airQuality.current(point, options.signal).catch(quiet("air quality", null)),
  ]);
  return { alerts, airQuality, ...feedSources(ctx, place, date, now) };
}

/** The town's events and new headlines from its feeds' stored items (no I/O beyond the database). */
export function feedSources(ctx: AppContext, place: PlaceRow, date: string, now: Date): Pick<TownSources, "events" | "headlines" | "credits"> {
  const events: FeedEvent[] = [];
  const candidates: Headline[] = [];
  const credits: SourceCredit[] = [];
  // A county-wide outlet's items reach the town only when they name it (src/core/sources/county-filter.ts).
  const namesTown = townNameMatcher(place.name);
  for (const { feed, items } of currentFeedItems(ctx.db, place.geoid, now)) {
    const countyWide = feed.scope === "county";
    if (feed.home_url) credits.push({ name: feed.title, url: feed.home_url, countyWide });
    if (feed.kind === "ical") {
      const own = feedEventsFor(items as CalendarOccurrence[], { feedId: feed.id, source: feed.title, timeZone: place.timezone, fromDate: date, days: FEED_EVENT_DAYS });
      events.push(...(countyWide ? own.filter((e) => namesTown(e.title) || (e.venue ? namesTown(e.venue) : false)) : own));
    } else {
      for (const h of items as StoredHeadline[]) {
        if (countyWide && !namesTown(h.title)) continue;
        candidates.push({ ...h, outlet: feed.title, ...(countyWide ? { countyWide } : {}) });
      }
    }
  }
  events.sort((a, b) => a.startsAt.slice(0, 10).localeCompare(b.startsAt.slice(0, 10)) || Number(b.allDay) - Number(a.allDay) || a.startsAt.localeCompare(b.startsAt) || a.title.localeCompare(b.title));
  const headlines = newHeadlines(ctx, place, date, now, candidates);
  // The first headline can lead the edition: the town's own outlets before a county-wide one's.
  const own = headlines.findIndex((h) => !h.countyWide);
  if (own > 0) headlines.unshift(...headlines.splice(own, 1));
  return { events, headlines, credits };
}

/** Up to MAX_HEADLINES candidates, newest first, one per key and per link, none shown in an earlier edition nor older than a week. */
function newHeadlines(ctx: AppContext, place: PlaceRow, date: string, now: Date, candidates: Headline[]): Headline[] {
  candidates = candidates.filter((h) => !h.publishedAt || now.getTime() - Date.parse(h.publishedAt) <= HEADLINE_MAX_AGE_MS);
  if (candidates.length === 0) return [];
  // An item dated after the edition's day is a feed's clock error, not news from the future: it sorts as undated.
  const when = (h: Headline) => (h.publishedAt && localDate(new Date(h.publishedAt), place.timezone) <= date ? h.publishedAt : "");
  candidates.sort((a, b) => when(b).localeCompare(when(a)));
  const shown = headlinesShownBefore(ctx.db, place.geoid, candidates.map((h) => h.key), date);
  const keys = new Set<string>();
  const urls = new Set<string>();
  const out: Headline[] = [];
  for (const h of candidates) {
    if (shown.has(h.key) || keys.has(h.key) || urls.has(h.url)) continue;
    keys.add(h.key);
    urls.add(h.url);
    out.push(h);
    if (out.length === MAX_HEADLINES) break;
  }
  return out;
}
