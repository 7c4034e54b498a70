import { semaphore, type Semaphore } from "../../lib/semaphore.ts";
import { activeAlerts } from "../../core/hazards/alert-section.ts";
import type { WeatherAlert } from "../../core/hazards/weather-alert.ts";
import type { TownSources } from "../../core/sources/town-sources.ts";
import { feedParts, newHeadlines } from "../../core/sources/feed-parts.ts";
import { SourceError } from "../../integrations/http-json.ts";
import {
  feedItemsOfPlace, headlinesShownBefore, recordFetchFailure, recordFetchOk, recordNotModified, sourceIdsByPlace, sourcesOfPlaces,
  type FeedSourceRow,
} from "../../store/sources/feeds.ts";
import type { PlaceRow } from "../../store/places/places.ts";
import type { AppContext } from "../platform/context.ts";
import { parseFeedBody } from "./feeds.ts";
import { SourceGuard } from "./source-guard.ts";

// What public sources add to a town's edition (the TownSources seam of src/core/sources/town-sources.ts):
// events and headlines from the town's feeds, which the morning refreshes once per address before
// (and while) composing. The morning's alerts and air quality come from its run snapshot
// (services/sources/run-sources.ts); `townSources` asks NWS and Open-Meteo for one town live. Nothing here throws into the
// morning: a source that is down, slow or wrong gives nothing, within its time limit.

/** A source attempted this recently is not fetched again: once a morning. */
export const FEED_RECHECK_MS = 12 * 3_600_000;
/** Consecutive failed mornings after which a feed is marked failing (shown so on the desk). */
export const FEED_FAILING_AFTER = 3;
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

/** Fetches one source with its validators, through its host's guard, and records the outcome; never throws. */
async function refreshSource(ctx: AppContext, source: FeedSourceRow, now: Date, guard: SourceGuard, overall: Semaphore, summary: RefreshSummary): Promise<void> {
  const at = now.toISOString();
  let failure: unknown;
  const r = await guard.call(0, (signal) => overall(() => ctx.sources.feeds.fetch(source.url, { etag: source.etag, lastModified: source.last_modified }, signal))
    .catch((err: unknown) => {
      failure = err;
      throw err;
    }));
  try {
    // A run stopped early (shutdown), or the refresh's time up, says nothing about the feed: the next run tries it as if untouched.
    if (!r.ok && r.why !== "failed") {
      summary.skipped++;
      return;
    }
    if (!r.ok) throw failure;
    if (r.value.status === "not-modified") {
      // An unchanged calendar still moves on: its recurrences are expanded again over today's window.
      const again = source.kind === "ical" && source.body ? JSON.stringify(parseFeedBody(source.body, source.url, now).items) : undefined;
      recordNotModified(ctx.db, source.id, at, again);
      summary.notModified++;
      return;
    }
    const parsed = parseFeedBody(r.value.body, r.value.url, now);
    recordFetchOk(ctx.db, source.id, { kind: parsed.kind, title: parsed.title, itemsJson: JSON.stringify(parsed.items), body: parsed.kind === "ical" ? r.value.body : null, etag: r.value.etag, lastModified: r.value.lastModified }, at);
    summary.fetched++;
  } catch (err) {
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
  const all = sourcesOfPlaces(ctx.db, geoids, now.toISOString());
  const summary: RefreshSummary = { sources: all.length, fetched: 0, notModified: 0, failed: 0, skipped: 0, ms: 0 };
  const due = all.filter((s) => !s.checked_at || now.getTime() - Date.parse(s.checked_at) >= FEED_RECHECK_MS || Date.parse(s.checked_at) > now.getTime());
  summary.skipped = all.length - due.length;
  const overall = semaphore(REFRESH_CONCURRENCY);
  // Each host is a source with its own guard, as every outside source of the morning
  // (src/services/sources/source-guard.ts): its concurrency, the refresh's budget, 429s obeyed. Every
  // feed counts its own failures (no circuit for the host: another feed of it may be fine).
  const perHost = new Map<string, SourceGuard>();
  const bySource = new Map<number, Promise<void>>();
  for (const source of due) {
    const host = hostOf(source.url);
    let guard = perHost.get(host);
    if (!guard) {
      perHost.set(host, (guard = new SourceGuard({
        provider: `feeds of ${host}`, concurrency: ctx.config.sources.feedHostConcurrency, budgetMs: ctx.config.sources.feedTimeoutMs * REFRESH_BUDGET_FACTOR,
        failureThreshold: Infinity, signal: options.signal, log: ctx.log,
      })));
    }
    bySource.set(source.id, refreshSource(ctx, source, now, guard, overall, summary));
  }
  const byPlace = due.length > 0 ? sourceIdsByPlace(ctx.db, geoids, now.toISOString()) : new Map<string, number[]>();
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
  const { events, candidates, credits } = feedParts(feedItemsOfPlace(ctx.db, place.geoid, now.toISOString()), place, date, now);
  const shown = candidates.length > 0 ? headlinesShownBefore(ctx.db, place.geoid, candidates.map((h) => h.key), date) : new Set<string>();
  return { events, headlines: newHeadlines(candidates, shown), credits };
}
