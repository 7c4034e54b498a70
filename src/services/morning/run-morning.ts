import { randomUUID } from "node:crypto";
import { localDate, localHour } from "../../lib/time.ts";
import { eachLimited } from "../../lib/pool.ts";
import { forgetHeadlinesShown } from "../../store/sources/feeds.ts";
import { editionsOf } from "../../store/morning/town-reads.ts";
import { latestEditionId } from "../../store/morning/editions.ts";
import { acquireLease, releaseLease, renewLease, subscribedPlaces } from "../../store/morning/due-towns.ts";
import type { PlaceRow } from "../../store/places/places.ts";
import type { AppContext } from "../platform/context.ts";
import { sweepCommerce } from "../commerce/listings.ts";
import { settleAllPayouts } from "../commerce/payouts.ts";
import { refreshSearchSets } from "../site/search.ts";
import type { DueTown, RunSnapshot } from "../sources/run-sources.ts";
import { HEADLINES_REMEMBERED_MS } from "../sources/town-sources.ts";
import { countServed } from "../weather/hazards.ts";
import { composeAndStore, type BatchOutcome } from "./compose-batch.ts";
import { startGather } from "./gather.ts";
import { composeWorkerCount, composeWorkers } from "./compose-workers.ts";
import { publishPending } from "./publish-pending.ts";
import { formatSummary, reportProviders, type MorningSummary } from "./summary.ts";
import { recordRun } from "./run-record.ts";

// The morning, one way and on one clock (the run's `now`), as named steps in order: 1. the commerce
// sweep (what time changed, stored; the towns it touched join this morning's publish), 2. forgetting
// old headlines, 3. the due towns, 4. gather (every outside source for all due towns at once, then a
// batch of towns' rows at a time: gather.ts), 5. compose (pure, per town:
// src/core/edition/compose-town.ts), 6. store (a batch in one transaction: compose-batch.ts), 7. the
// search sets, 8. publish, 9. digests and weeklies (publish-pending.ts), 10. payouts, 11. the run
// record (run-record.ts). Nothing is published before it is stored.


export interface MorningOptions {
  /** Overrides the configured clock (`NOW`). */
  now?: Date;
  /** Called after each due city is handled: for a progress display. */
  onProgress?: (done: number, total: number) => void;
  /** Batches of towns in hand at once (each waits for its own sources; composing itself is synchronous). */
  concurrency?: number;
  /** `false`: compose and store only (benchmarks); what is stored is published by the next run. */
  publish?: boolean;
  /** Worker threads to compose in (default: one per core beyond this one's, none for a morning of fewer than two batches). */
  composeWorkers?: number;
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

/**
 * Towns gathered, composed and stored together: their rows are read in one statement per kind and
 * stored in one transaction, a dozen statements for the batch (a town alone took a dozen).
 */
export const TOWN_BATCH = 200;


/** The subscribed towns past their publication hour without an edition for their local date (one read for all). */
function dueTowns(ctx: AppContext, places: PlaceRow[], now: Date): DueTown[] {
  const past = places.filter((place) => localHour(now, place.timezone) >= ctx.config.publishHour).map((place) => ({ place, date: localDate(now, place.timezone) }));
  const stored = editionsOf(ctx.db, past.map(({ place, date }) => ({ geoid: place.geoid, date })));
  return past.filter(({ place, date }) => !stored.has(`${place.geoid} ${date}`));
}

/** Counts a batch's outcome in the summary. */
function countBatch(ctx: AppContext, summary: MorningSummary, out: BatchOutcome, warned: { without: number }): void {
  for (const { town, composed } of out.stored) {
    summary.composed++;
    if (composed.hazards && summary.hazards) countServed(summary.hazards, composed.hazards, composed.uvIndexMax);
    if (composed.weather) continue;
    summary.withoutWeather++;
    // A few towns by name; the summary line counts them all (a national outage must not write 32,000 lines).
    if (++warned.without <= WARN_TOWNS_WITHOUT) ctx.log.warn({ geoid: town.place.geoid, slug: town.place.slug, date: town.date }, "weather unavailable; publishing the edition without a forecast");
  }
  summary.skipped += out.skipped.length;
  for (const { town, err } of out.failed) {
    summary.failed++;
    ctx.log.error({ err, geoid: town.place.geoid, slug: town.place.slug, date: town.date }, "composing the edition failed");
  }
}

/**
 * Gathers, composes and stores every due town, a batch at a time as each batch's sources come in;
 * fills the summary's counts and the sources' figures. Returns false when the run was stopped.
 */
async function composeDue(ctx: AppContext, due: DueTown[], now: Date, options: MorningOptions, summary: MorningSummary, owner: string): Promise<boolean> {
  const gather = startGather(ctx, due, { now, signal: options.signal, ...(options.gather ? { gather: options.gather } : {}) });
  // The hazards' figures are counted as towns are stored (countServed).
  summary.hazards = (await gather.hazards).summary;
  // Every town's tides are in: the tide worker's heap (a decoded station database) goes before composing.
  ctx.hazards.tides.release();
  const batches = Array.from({ length: Math.ceil(due.length / TOWN_BATCH) }, (_, i) => due.slice(i * TOWN_BATCH, (i + 1) * TOWN_BATCH));
  let done = 0;
  let lastRenew = Date.now();
  const warned = { without: 0 };
  const workers = options.composeWorkers ?? composeWorkerCount(due.length, 2 * TOWN_BATCH);
  const pool = workers > 0 ? composeWorkers(workers) : undefined;
  try {
    await eachLimited(batches, options.concurrency ?? 4, async (batch) => {
      const gathered = await gather.snapshots(batch).catch((err: unknown) => batch.map((town) => ({ town, error: err })));
      if (options.signal?.aborted) return; // stopping: a town whose sources were cut stays due, for the next run
      countBatch(ctx, summary, await composeAndStore(ctx, gathered, now, pool), warned);
      for (let i = 0; i < batch.length; i++) options.onProgress?.(++done, due.length);
      if (Date.now() - lastRenew > LEASE_TTL_MS / 4) {
        lastRenew = Date.now();
        if (!renewLease(ctx.db, owner, LEASE_TTL_MS)) ctx.log.warn("morning lease lost to another run; UNIQUE keys keep the work single");
      }
    }, { signal: options.signal });
  } finally {
    await pool?.close();
  }
  if (options.signal?.aborted) return false;
  const figures = await gather.done();
  summary.feeds = figures.feeds;
  summary.providers = figures.providers;
  reportProviders(ctx, summary);
  return true;
}

/** Step 2: shown headlines that can never be offered again are forgotten (after a month at least). */
function forgetHeadlines(ctx: AppContext, now: Date): void {
  const remembered = new Date(now.getTime() - HEADLINES_REMEMBERED_MS).toISOString();
  const forgotten = forgetHeadlinesShown(ctx.db, remembered.slice(0, 10), remembered);
  if (forgotten > 0) ctx.log.info({ forgotten }, "forgot headlines shown over a month ago that can never be offered again");
}

/** The latest editions of the towns whose listings the sweep changed: their pages are rendered again with this morning's. */
function latestEditionsOf(ctx: AppContext, towns: Set<string>): number[] {
  return [...towns].map((g) => latestEditionId(ctx.db, g)).filter((id): id is number => id !== undefined);
}

/**
 * The morning run: for every subscribed city past its publication hour without an edition for its
 * local date, compose and store one; then publish everything stored and not yet published.
 * Idempotent and safe to run twice at once (a lease lets one run work; UNIQUE keys back it up).
 * Its steps, in order, all on one clock (the run's `now`): nothing is published before it is stored.
 */
export async function runMorning(ctx: AppContext, options: MorningOptions = {}): Promise<MorningSummary> {
  const started = performance.now();
  const now = options.now ?? ctx.config.now();
  const summary: MorningSummary = {
    at: now.toISOString(), cities: 0, due: 0, composed: 0, skipped: 0, failed: 0, withoutWeather: 0,
    published: 0, publishFailed: 0, pagesWritten: 0, digestsQueued: 0, ms: 0,
  };
  // The figures as one object: JSON logs keep them all, a terminal shows the one-line summary.
  const finish = (message: (s: MorningSummary) => string = formatSummary, fields: object = { summary }) => {
    summary.ms = Math.round(performance.now() - started);
    // Last step: the run record, at the run's `now` plus the time it took.
    recordRun(ctx, summary);
    ctx.log.info(fields, message(summary));
    return summary;
  };
  const owner = randomUUID();
  const lease = acquireLease(ctx.db, owner, LEASE_TTL_MS);
  if (!lease.acquired) {
    summary.busy = { pid: lease.holder.pid, host: lease.holder.host };
    return finish(() => "another morning run is in progress; nothing to do", { holder: summary.busy });
  }
  try {
    // 1. The commerce sweep: what time changed (listings whose run ended leave the calendar and
    // directory) is stored before today's editions read it; it publishes nothing itself.
    const swept = sweepCommerce(ctx, now);
    // 2. Headlines remembered past their month are forgotten.
    forgetHeadlines(ctx, now);
    // 3. The due towns.
    const places = subscribedPlaces(ctx.db);
    const due = dueTowns(ctx, places, now);
    Object.assign(summary, { cities: places.length, due: due.length, skipped: places.length - due.length });
    // 4-6. Gather, compose and store, a batch of towns at a time.
    if (due.length > 0 && !(await composeDue(ctx, due, now, options, summary, owner))) {
      summary.stopped = true;
      return finish(() => "morning run stopped; the next run composes and publishes the rest", { composed: summary.composed, due: summary.due });
    }
    if (options.publish === false) return finish();
    // 7. Search sets: totals of today's editions come from the kept sets once this has run (FTS5 until then).
    if (summary.composed > 0) await refreshSearchSets(ctx);
    renewLease(ctx.db, owner, LEASE_TTL_MS); // a fresh term for the publishing step
    // 8-9. Publish what is stored (and the pages of the towns the sweep changed), then the digests and weeklies.
    Object.assign(summary, await publishPending(ctx, now, latestEditionsOf(ctx, swept)));
    // 10. Payouts (Stripe mode): operators' shares whose transfer (or reversal) failed earlier are retried each run.
    if (ctx.connect) await settleAllPayouts(ctx, now).catch((err) => ctx.log.error({ err }, "settling operator payouts failed"));
  } finally {
    releaseLease(ctx.db, owner);
  }
  return finish();
}
