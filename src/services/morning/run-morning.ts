import { randomUUID } from "node:crypto";
import { withClickLinks } from "../../core/edition/click-links.ts";
import { composeEdition, renderEditionHtml } from "../../core/edition/compose.ts";
import { holidaysOn, upcomingHolidays } from "../../core/calendar/holidays.ts";
import { sunTimes } from "../../core/weather/sun.ts";
import { localDate, localHour } from "../../lib/time.ts";
import { NO_TOWN_SOURCES, type TownSources } from "../../core/sources/town-sources.ts";
import { insertEdition, weatherHistory } from "../../store/morning/editions.ts";
import { forgetHeadlinesShown, recordHeadlinesShown } from "../../store/sources/feeds.ts";
import { findNote } from "../../store/commerce/notes.ts";
import {
  acquireLease, hasEdition, markDigestsQueued, markPending, markSitePublished, pendingEditions, releaseLease, renewLease,
  subscribedPlaces, type Lease,
} from "../../store/morning/due-towns.ts";
import type { PlaceRow } from "../../store/places/places.ts";
import { addDays } from "../../core/calendar/holidays.ts";
import { clickKey } from "../readers/clicks.ts";
import { townFactOfDay } from "../places/fact-of-day.ts";
import type { AppContext } from "../platform/context.ts";
import { queueEditionDigests } from "../mail/digests.ts";
import { cityListings } from "../../site/city-listings.ts";
import { sweepCommerce } from "../commerce/listings.ts";
import { settleAllPayouts } from "../commerce/payouts.ts";
import { publishEditions } from "../site/publish.ts";
import { refreshSearchSets } from "../site/search.ts";
import { gatherRun, type DueTown, type RunSnapshot, type TownInputs } from "../sources/run-sources.ts";
import type { ProviderStats } from "../sources/source-guard.ts";
import { feedSources, HEADLINES_REMEMBERED_MS, startFeedRefresh, type RefreshSummary } from "../sources/town-sources.ts";
import { countServed, formatHazardsSummary, gatherRunHazards, recordTownHazards, townHazards, type HazardsSummary } from "../weather/hazards.ts";
import type { TownHazards } from "../../core/hazards/town-hazards.ts";

export interface MorningSummary {
  /** The instant the run treated as "now" (ISO). */
  at: string;
  /** Cities with at least one active subscriber. */
  cities: number;
  /** Of those, past the publication hour with no edition for their local date. */
  due: number;
  composed: number;
  /** Cities not due (before the hour, or already published), plus due ones another run stored first. */
  skipped: number;
  failed: number;
  /** Editions stored without a forecast because the weather provider failed. */
  withoutWeather: number;
  /** Editions whose site pages were written by this run (including ones left over by a crashed run). */
  published: number;
  pagesWritten: number;
  /** Editions whose site publish failed this run (left for the next run). */
  publishFailed: number;
  /** Digest messages put in the outbox by this run. */
  digestsQueued: number;
  /** The due towns' feeds: fetched once per address this run (see services/sources/town-sources.ts). */
  feeds?: RefreshSummary;
  /** The hazards every due town shares: one request per provider this run (see services/weather/hazards.ts). */
  hazards?: HazardsSummary;
  /** Each outside provider's figures for this run (see services/sources/run-sources.ts). */
  providers?: ProviderStats[];
  ms: number;
  /** Set when another live run held the lease: this run did nothing. */
  busy?: Pick<Lease, "pid" | "host">;
  /** Set when the run was stopped (MorningOptions.signal) before it finished; the next run does the rest. */
  stopped?: boolean;
}

export interface MorningOptions {
  /** Overrides the configured clock (`NOW`). */
  now?: Date;
  /** Called after each due city is handled: for a progress display. */
  onProgress?: (done: number, total: number) => void;
  /** Towns composed at once (each waits for its own sources; composing itself is synchronous). */
  concurrency?: number;
  /** `false`: compose and store only (benchmarks); what is stored is published by the next run. */
  publish?: boolean;
  /** Overrides how the run's sources are gathered (the benchmark's per-town baseline). */
  gather?: (ctx: AppContext, towns: DueTown[], options: { now: Date; signal?: AbortSignal }) => RunSnapshot;
  /**
   * Stops the run (SIGTERM): no new city is started, fetches in flight (forecast, feeds, alerts, air
   * quality) are aborted, and a city whose fetch was cut is left due (not composed without its
   * forecast); nothing is published. The next run does the rest.
   */
  signal?: AbortSignal;
}

/** Towns named in a warning when they go without a forecast; the rest are counted in the summary. */
const WARN_TOWNS_WITHOUT = 5;

/** A run holds the lease this long and renews it as it goes; a crashed run's lease frees itself. */
const LEASE_TTL_MS = 10 * 60 * 1000;

/** A city is due when its local clock is past the publication hour and its local date has no edition yet. */
export function isDue(ctx: AppContext, place: PlaceRow, now: Date): { due: boolean; date: string } {
  const date = localDate(now, place.timezone);
  const due = localHour(now, place.timezone) >= ctx.config.publishHour && !hasEdition(ctx.db, place.geoid, date);
  return { due, date };
}

function noteOf(ctx: AppContext, geoid: string, date: string): { markdown: string; authorName: string } | null {
  const row = findNote(ctx.db, geoid, date);
  return row ? { markdown: row.markdown, authorName: row.author_name } : null;
}

/** The town's sources: the run's alerts and air quality, its feeds' stored items; never throws. */
function sourcesOf(ctx: AppContext, place: PlaceRow, date: string, now: Date, inputs: TownInputs | undefined): TownSources {
  try {
    return { alerts: inputs?.alerts ?? [], airQuality: inputs?.airQuality ?? null, ...feedSources(ctx, place, date, now) };
  } catch (err) {
    ctx.log.error({ err, slug: place.slug, date }, "gathering the town's sources failed; the edition goes without them");
    return NO_TOWN_SOURCES;
  }
}

/**
 * Composes and stores one city's edition for `date` from what the run gathered (`inputs`: its
 * forecast, alerts and air quality; `hazards`: its part of the run's quakes, declarations and tides;
 * none when absent) and its own rows: no network here. The
 * edition, its search row, its publishing-ledger row and the headlines it shows are one
 * transaction: either all exist or none. Returns the new id, or undefined when another run stored
 * the edition first.
 */
export function composeCity(ctx: AppContext, place: PlaceRow, date: string, now: Date, inputs?: TownInputs, hazards: TownHazards | null = null): { id?: number; weather: boolean } {
  const weather = inputs?.weather ?? null;
  const sources = sourcesOf(ctx, place, date, now, inputs);
  // The public calendars' events come with the town's sources (feedSources): the listings alone here.
  const listings = cityListings(ctx.db, place, now, { feeds: false });
  const today = weather?.daily.find((d) => d.date === date);
  const { subject, markdown, factKey } = composeEdition({
    place: { name: place.name, stateName: place.state_name, slug: place.slug, timezone: place.timezone },
    date,
    baseUrl: ctx.config.baseUrl,
    at: now.toISOString(),
    weather,
    sun: sunTimes({ date, latitude: place.latitude, longitude: place.longitude, timezone: place.timezone, forecast: today }),
    holidays: { today: holidaysOn(date, place.state_code), upcoming: upcomingHolidays(date, place.state_code) },
    censusFact: townFactOfDay(ctx, place, date),
    // The daily email carries the featured events; the directory section mentions featured businesses weekly.
    events: listings.events.filter((e) => e.featured),
    listings: listings.directory,
    sources: hazards ? { ...sources, hazards } : sources,
    note: noteOf(ctx, place.geoid, date),
    // Since the start of the last freeze season (July 1 a year back at most) and every earlier same day.
    history: weatherHistory(ctx.db, place.geoid, date, addDays(date, -190)),
  });
  // Outbound links go through our counting redirect (src/core/edition/click-links.ts); the markdown keeps them as they are.
  const html = withClickLinks(renderEditionHtml(markdown), ctx.config.baseUrl, clickKey(ctx), place.slug, date);
  const id = ctx.db.transaction(() => {
    const stored = insertEdition(ctx.db, {
      placeGeoid: place.geoid, date, subject, markdown, html,
      ...(weather ? { weather } : {}),
      publishedAt: now.toISOString(),
      factKey,
    });
    if (stored !== undefined) {
      markPending(ctx.db, stored);
      recordHeadlinesShown(ctx.db, place.geoid, date, sources.headlines);
      if (hazards) recordTownHazards(ctx, place, date, hazards);
    }
    return stored;
  }).immediate();
  return { id, weather: weather !== null };
}

/**
 * Publishes what is stored but not yet published, whichever run stored it: the site pages of every
 * such edition in one incremental render, then each edition's digests. Each step stamps the ledger
 * when done, so a crash between steps is finished by the next run and nothing is done twice.
 */
async function publishPending(ctx: AppContext, at: string): Promise<{ published: number; publishFailed: number; pagesWritten: number; digestsQueued: number }> {
  const pending = pendingEditions(ctx.db);
  let published = 0;
  let publishFailed = 0;
  let pagesWritten = 0;
  let digestsQueued = 0;
  const siteIds = pending.filter((p) => !p.sitePublished).map((p) => p.id);
  if (siteIds.length > 0) {
    try {
      pagesWritten = (await publishEditions(ctx, siteIds)).pagesWritten;
      markSitePublished(ctx.db, siteIds, at);
      published = siteIds.length;
    } catch (err) {
      publishFailed = siteIds.length;
      // Left unstamped: the next run renders these again. Digests still go out: the email carries the whole edition.
      ctx.log.error({ err, editions: siteIds.length }, "site publish failed; the next run retries it");
    }
  }
  for (const p of pending.filter((x) => !x.digestsQueued)) {
    try {
      // Stamp and queue in one transaction: a concurrent run that stamped first makes this one a no-op.
      digestsQueued += ctx.db.transaction(() =>
        markDigestsQueued(ctx.db, p.id, at) ? queueEditionDigests(ctx, { id: p.id, placeGeoid: p.placeGeoid, date: p.date }) : 0,
      ).immediate();
    } catch (err) {
      ctx.log.error({ err, editionId: p.id }, "queueing digests failed; the next run retries it");
    }
  }
  return { published, publishFailed, pagesWritten, digestsQueued };
}

/** Runs at most `limit` tasks at once, in order of `items`. */
async function eachLimited<T>(items: T[], limit: number, task: (item: T) => Promise<void>, signal?: AbortSignal): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal?.aborted) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * The morning run: for every subscribed city past its publication hour without an edition for its
 * local date, compose and store one; then publish everything stored and not yet published.
 * Idempotent and safe to run twice at once (a lease lets one run work; UNIQUE keys back it up).
 */
export async function runMorning(ctx: AppContext, options: MorningOptions = {}): Promise<MorningSummary> {
  const started = performance.now();
  const now = options.now ?? ctx.config.now();
  const summary: MorningSummary = {
    at: now.toISOString(), cities: 0, due: 0, composed: 0, skipped: 0, failed: 0, withoutWeather: 0,
    published: 0, publishFailed: 0, pagesWritten: 0, digestsQueued: 0, ms: 0,
  };
  const owner = randomUUID();
  const lease = acquireLease(ctx.db, owner, LEASE_TTL_MS);
  if (!lease.acquired) {
    summary.busy = { pid: lease.holder.pid, host: lease.holder.host };
    summary.ms = Math.round(performance.now() - started);
    ctx.log.info({ holder: summary.busy }, "another morning run is in progress; nothing to do");
    return summary;
  }
  try {
    // Listings whose run is over leave the calendar and directory before today's editions are composed.
    sweepCommerce(ctx);
    // Shown headlines that can never be offered again are forgotten (after a month at least).
    const remembered = new Date(now.getTime() - HEADLINES_REMEMBERED_MS).toISOString();
    const forgotten = forgetHeadlinesShown(ctx.db, remembered.slice(0, 10), remembered);
    if (forgotten > 0) ctx.log.info({ forgotten }, "forgot headlines shown over a month ago that can never be offered again");
    const places = subscribedPlaces(ctx.db);
    summary.cities = places.length;
    const due: Array<{ place: PlaceRow; date: string }> = [];
    for (const place of places) {
      const d = isDue(ctx, place, now);
      if (d.due) due.push({ place, date: d.date });
    }
    summary.due = due.length;
    summary.skipped = places.length - due.length;
    // Each due town's feeds are fetched once per address, alongside composing: a town waits only for its own.
    const refresh = due.length > 0 ? startFeedRefresh(ctx, due.map((d) => d.place.geoid), { now, signal: options.signal }) : undefined;
    // Forecast, air quality and alerts: each source asked once per shared grain for all due towns.
    const run = due.length > 0 ? (options.gather ?? gatherRun)(ctx, due, { now, signal: options.signal }) : undefined;
    // The hazards every town shares: one request per provider for the whole run, alongside the feeds (never rejects).
    const hazards = due.length > 0 ? gatherRunHazards(ctx, due.map((d) => d.place), { now, signal: options.signal }) : undefined;
    let done = 0;
    let lastRenew = Date.now();
    let warnedWithout = 0;
    await eachLimited(due, options.concurrency ?? 16, async ({ place, date }) => {
      try {
        await refresh?.ready(place.geoid);
        const [inputs, gathered] = await Promise.all([run!.forTown({ place, date }), hazards]);
        if (options.signal?.aborted) return; // stopping: a town whose sources were cut stays due, for the next run
        const townHz = gathered ? townHazards(ctx, gathered.run, place, date) : null;
        const r = composeCity(ctx, place, date, now, inputs, townHz);
        if (r.id !== undefined && gathered && townHz) countServed(gathered.summary, townHz, inputs.weather?.daily.find((d) => d.date === date)?.uvIndexMax);
        if (r.id === undefined) summary.skipped++;
        else {
          summary.composed++;
          if (!r.weather) {
            summary.withoutWeather++;
            // A few towns by name; the summary line counts them all (a national outage must not write 32,000 lines).
            if (++warnedWithout <= WARN_TOWNS_WITHOUT) ctx.log.warn({ geoid: place.geoid, slug: place.slug, date }, "weather unavailable; publishing the edition without a forecast");
          }
        }
      } catch (err) {
        if (options.signal?.aborted) return; // stopped mid-city: left for the next run
        summary.failed++;
        ctx.log.error({ err, geoid: place.geoid, slug: place.slug, date }, "composing the edition failed");
      }
      options.onProgress?.(++done, due.length);
      // Composing is synchronous and towns whose inputs are in follow each other as microtasks: without
      // a turn of the event loop between them, answers still arriving (other batches, feeds) would not
      // be read, and their timeouts would fire first.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (Date.now() - lastRenew > LEASE_TTL_MS / 4) {
        lastRenew = Date.now();
        if (!renewLease(ctx.db, owner, LEASE_TTL_MS)) ctx.log.warn("morning lease lost to another run; UNIQUE keys keep the work single");
      }
    }, options.signal);
    if (options.signal?.aborted) {
      summary.stopped = true;
      summary.ms = Math.round(performance.now() - started);
      ctx.log.info({ composed: summary.composed, due: summary.due }, "morning run stopped; the next run composes and publishes the rest");
      return summary;
    }
    if (refresh) summary.feeds = await refresh.done;
    if (hazards) summary.hazards = (await hazards).summary;
    if (run) {
      summary.providers = await run.done;
      reportProviders(ctx, summary);
    }
    if (options.publish === false) {
      summary.ms = Math.round(performance.now() - started);
      ctx.log.info({ summary }, formatSummary(summary));
      return summary;
    }
    // Search totals of today's editions come from the kept sets once this has run (FTS5 until then).
    if (summary.composed > 0) await refreshSearchSets(ctx);
    renewLease(ctx.db, owner, LEASE_TTL_MS); // a fresh term for the publishing step
    Object.assign(summary, await publishPending(ctx, now.toISOString()));
    // Stripe mode: operators' shares whose transfer (or reversal) failed earlier are retried each run.
    if (ctx.connect) await settleAllPayouts(ctx).catch((err) => ctx.log.error({ err }, "settling operator payouts failed"));
  } finally {
    releaseLease(ctx.db, owner);
  }
  summary.ms = Math.round(performance.now() - started);
  // The figures as one object: JSON logs keep them all, a terminal shows the one-line summary.
  ctx.log.info({ summary }, formatSummary(summary));
  return summary;
}

/**
 * One line an operator can act on when towns went without a forecast because Open-Meteo's free
 * tier refused (429) or its window from an earlier 429 was still closed.
 */
function reportProviders(ctx: AppContext, s: MorningSummary): void {
  const forecast = s.providers?.find((p) => p.provider === "Open-Meteo forecast");
  if (!forecast || forecast.townsWithout === 0) return;
  if (forecast.rateLimited > 0 || forecast.blocked) {
    const key = ctx.config.sources.openMeteoApiKey;
    ctx.log.warn({ townsWithout: forecast.townsWithout, window: forecast.blocked?.window, until: forecast.blocked?.until },
      `${forecast.townsWithout} of ${s.due} towns went without a forecast: Open-Meteo's ${forecast.blocked?.window ?? "rate"} limit was reached`
      + (key ? " (check the plan's limits)" : "; the free tier allows 600 locations a minute, 5,000 an hour and 10,000 a day, for non-commercial use: set OPEN_METEO_API_KEY (a paid plan, with OPEN_METEO_URL and AIR_QUALITY_API_URL on its customer hosts) to lift it"));
  } else if (forecast.circuitOpen) {
    ctx.log.warn({ townsWithout: forecast.townsWithout }, `${forecast.townsWithout} of ${s.due} towns went without a forecast: Open-Meteo kept failing (circuit opened)`);
  }
}

/** A provider's part of the summary line. */
function providerLine(p: ProviderStats): string {
  const parts = [`${p.requests} requests`];
  if (p.locations) parts.push(`${p.locations} locations`);
  if (p.reused) parts.push(`${p.reused} reused`);
  if (p.notModified) parts.push(`${p.notModified} not modified`);
  if (p.rateLimited) parts.push(`${p.rateLimited} × 429${p.blocked ? ` (${p.blocked.window} limit until ${p.blocked.until})` : ""}`);
  else if (p.blocked) parts.push(`held back by an earlier 429 (${p.blocked.window} limit until ${p.blocked.until})`);
  if (p.failures) parts.push(`${p.failures} failed`);
  if (p.circuitOpen) parts.push("circuit open");
  parts.push(`${p.townsServed} towns served${p.townsWithout ? `, ${p.townsWithout} without` : ""}`);
  return `${p.provider}: ${parts.join(", ")}`;
}

/** The one-line summary printed by `npm run morning` and logged by the scheduler. */
export function formatSummary(s: MorningSummary): string {
  if (s.busy) return `morning ${s.at}: another run (pid ${s.busy.pid} on ${s.busy.host}) is in progress; nothing done`;
  if (s.stopped) return `morning ${s.at}: stopped after ${s.composed} of ${s.due} due cities composed; nothing published (the next run does the rest); ${(s.ms / 1000).toFixed(2)} s`;
  const weather = s.withoutWeather ? ` (${s.withoutWeather} without forecast)` : "";
  const site = s.publishFailed ? `, site publish failed for ${s.publishFailed} (retried next run)` : "";
  const f = s.feeds;
  const feeds = f && f.sources > 0 ? `; feeds: ${f.sources} addresses, ${f.fetched} fetched, ${f.notModified} unchanged, ${f.failed} failed, ${f.skipped} fetched earlier` : "";
  const providers = s.providers?.length ? `; ${s.providers.map(providerLine).join("; ")}` : "";
  return `morning ${s.at}: ${s.cities} cities, ${s.due} due, ${s.composed} composed${weather}, ${s.skipped} skipped, ${s.failed} failed; `
    + `${s.published} published${site}, ${s.pagesWritten} pages written, ${s.digestsQueued} digests queued${feeds}${providers}${s.hazards ? `; ${formatHazardsSummary(s.hazards)}` : ""}; ${(s.ms / 1000).toFixed(2)} s`;
}
