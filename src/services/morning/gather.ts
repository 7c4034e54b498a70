import { hazardKeys, hazardsForTown, type TownHazards } from "../../core/hazards/town-hazards.ts";
import { FACT_WINDOW_DAYS } from "../../core/edition/did-you-know.ts";
import { feedParts, type FeedParts } from "../../core/sources/feed-parts.ts";
import type { TownSnapshot } from "../../core/edition/town-snapshot.ts";
import { addDays } from "../../lib/time.ts";
import { notePrints } from "../../core/commerce/lease-end.ts";
import type { PlaceRow } from "../../store/places/places.ts";
import {
  feedRowsOf, hazardsToldOf, headlinesShownOf, notesOf, publishedOrdersOfTowns, recentFactKeysOf, weatherHistoriesOf,
} from "../../store/morning/town-reads.ts";
import { listingsOf } from "../../site/city-listings.ts";
import { clickKey } from "../readers/clicks.ts";
import { factPlaces, townFactContext } from "../places/fact-of-day.ts";
import type { AppContext } from "../platform/context.ts";
import { gatherRun, type DueTown, type RunSnapshot, type TownInputs } from "../sources/run-sources.ts";
import type { ProviderStats } from "../sources/source-guard.ts";
import { startFeedRefresh, type RefreshSummary } from "../sources/town-sources.ts";
import { gatherRunHazards, hazardPlace, type GatheredHazards, type HazardsSummary } from "../weather/hazards.ts";

// The morning's gather step: every outside source for all due towns at once (the run's sources:
// forecast, air quality, alerts; the hazards; the feeds' refresh), then, a batch of towns at a time
// as their sources come in, what the edition needs of the database in one statement per kind of row
// for the whole batch (src/store/morning/town-reads.ts), and the places facts from an index read
// once per run. Out comes each town's snapshot (src/core/edition/town-snapshot.ts): plain data.

export interface GatherOptions {
  now: Date;
  signal?: AbortSignal;
  /** Overrides how the run's sources are gathered (the benchmark's per-town baseline). */
  gather?: (ctx: AppContext, towns: DueTown[], options: { now: Date; signal?: AbortSignal }) => RunSnapshot;
}

export type Gathered = { snapshot: TownSnapshot; town: DueTown } | { error: unknown; town: DueTown };

export interface MorningGather {
  /** The batch's snapshots (or why a town has none), once each town's own sources are in; none when the run stops. */
  snapshots(batch: DueTown[]): Promise<Gathered[]>;
  /** Every source's figures, once all are done. */
  done(): Promise<{ feeds: RefreshSummary; hazards: HazardsSummary; providers: ProviderStats[] }>;
  /** The run's hazards, for the summary's count of towns served. */
  hazards: Promise<GatheredHazards>;
}

/** Starts every source for the due towns; nothing here rejects into the morning. */
export function startGather(ctx: AppContext, due: DueTown[], options: GatherOptions): MorningGather {
  const { now, signal } = options;
  // Read before any request is in flight: a synchronous read while one is would eat into its time limit.
  const facts = factPlaces(ctx);
  const key = clickKey(ctx);
  // Each due town's feeds are fetched once per address, alongside composing: a batch waits only for its own.
  const refresh = startFeedRefresh(ctx, due.map((d) => d.place.geoid), { now, signal });
  // Forecast, air quality and alerts: each source asked once per shared grain for all due towns.
  const run = (options.gather ?? gatherRun)(ctx, due, { now, signal });
  // The hazards every town shares: one request per provider for the whole run (never rejects).
  const hazards = gatherRunHazards(ctx, due.map((d) => d.place), { now, signal });
  return {
    hazards,
    async snapshots(batch) {
      // The towns in the order their sources came in (their feeds, then their part of the run's sources
      // and the hazards): stored in that order, as when each town was stored as soon as it was ready.
      const ready: number[] = [];
      const inputs = await Promise.all(batch.map(async (t, i) => {
        await refresh.ready(t.place.geoid);
        const [input] = await Promise.all([run.forTown(t).then((x): TownInputs | { error: unknown } => x, (error: unknown) => ({ error })), hazards]);
        ready.push(i);
        return input;
      }));
      const gathered = await hazards;
      if (signal?.aborted) return []; // stopping: a town whose sources were cut stays due, for the next run
      const reads = readBatch(ctx, batch, now, (b) => townHazardsOf(ctx, b, gathered));
      return ready.map((i): Gathered => {
        const town = batch[i]!;
        const input = inputs[i]!;
        if ("error" in input) return { error: input.error, town };
        try {
          return { town, snapshot: snapshotOf(town, input, reads, { baseUrl: ctx.config.baseUrl, clickKey: key, facts: (p) => townFactContext(facts, p) }) };
        } catch (error) {
          return { error, town };
        }
      });
    },
    async done() {
      const [feeds, h, providers] = await Promise.all([refresh.done, hazards, run.done]);
      return { feeds, hazards: h.summary, providers };
    },
  };
}

interface BatchReads {
  feeds: Map<string, FeedParts | null>;
  shown: Map<string, string[]>;
  listings: Map<string, TownSnapshot["listings"]>;
  notes: Map<string, TownSnapshot["note"]>;
  history: Map<string, TownSnapshot["history"]>;
  recentFacts: Map<string, TownSnapshot["facts"]["recent"]>;
  hazards: Map<string, TownHazards | null>;
}

/** The towns' feeds: events, headline candidates and credits, and which candidates were shown before; never throws. */
function readFeeds(ctx: AppContext, batch: DueTown[], now: Date): Pick<BatchReads, "feeds" | "shown"> {
  const feeds = new Map<string, FeedParts | null>();
  const shown = new Map<string, string[]>();
  try {
    const rows = feedRowsOf(ctx.db, batch.map((t) => t.place.geoid), now.toISOString());
    for (const { place, date } of batch) feeds.set(place.geoid, feedParts(rows.get(place.geoid) ?? [], place, date, now));
    const asked = batch.map(({ place, date }) => ({ geoid: place.geoid, date, keys: feeds.get(place.geoid)!.candidates.map((h) => h.key) }));
    for (const [g, rs] of headlinesShownOf(ctx.db, asked)) shown.set(g, rs.map((r) => r.key));
  } catch (err) {
    ctx.log.error({ err, towns: batch.length }, "gathering the towns' feeds failed; their editions go without them");
    for (const { place } of batch) feeds.set(place.geoid, null);
    shown.clear();
  }
  return { feeds, shown };
}

/** Everything the batch's editions read of the database: a statement per kind of row for the whole batch. */
function readBatch(ctx: AppContext, batch: DueTown[], now: Date, hazardsOf: (batch: DueTown[]) => Map<string, TownHazards | null>): BatchReads {
  const geoids = batch.map((t) => t.place.geoid);
  const { feeds, shown } = readFeeds(ctx, batch, now);
  const orders = publishedOrdersOfTowns(ctx.db, geoids);
  const listings = new Map(batch.map(({ place }) => {
    const l = listingsOf(orders.get(place.geoid) ?? [], place, now);
    // The daily email carries the featured events; the directory section mentions featured businesses weekly.
    return [place.geoid, { events: l.events.filter((e) => e.featured), directory: l.directory }];
  }));
  // An operator's note prints only while the lease it was written under runs, and not past its end.
  const timezones = new Map(batch.map(({ place }) => [place.geoid, place.timezone]));
  const notes = new Map([...notesOf(ctx.db, batch.map(({ place, date }) => ({ geoid: place.geoid, date })))]
    .filter(([g, n]) => notePrints({ leaseId: n.lease_id, date: n.date }, n.lease, timezones.get(g)!, now))
    .map(([g, n]) => [g, { markdown: n.markdown, authorName: n.author_name }]));
  // Since the start of the last freeze season (July 1 a year back at most) and every earlier same day.
  const history = weatherHistoriesOf(ctx.db, batch.map(({ place, date }) => ({ geoid: place.geoid, date, since: addDays(date, -190) })));
  const recentFacts = new Map([...recentFactKeysOf(ctx.db, batch.map(({ place, date }) => ({ geoid: place.geoid, from: addDays(date, -FACT_WINDOW_DAYS), before: date })))]
    .map(([g, rs]) => [g, rs.map((r) => ({ date: r.date, key: r.key }))]));
  return { feeds, shown, listings, notes, history, recentFacts, hazards: hazardsOf(batch) };
}

/** Each town's part of the run's hazards, without what an earlier edition of the town told (a quake or a declaration is news once). */
function townHazardsOf(ctx: AppContext, batch: DueTown[], gathered: GatheredHazards): Map<string, TownHazards | null> {
  const all = new Map(batch.map(({ place, date }) => [place.geoid, hazardsForTown(gathered.run, hazardPlace(place), date)]));
  const told = hazardsToldOf(ctx.db, batch.map(({ place, date }) => ({ geoid: place.geoid, date, keys: hazardKeys(all.get(place.geoid)!) })));
  return new Map(batch.map(({ place, date }) => {
    const keys = told.get(place.geoid);
    return [place.geoid, keys ? hazardsForTown(gathered.run, hazardPlace(place), date, new Set(keys.map((k) => k.key))) : all.get(place.geoid)!];
  }));
}

function snapshotOf(town: DueTown, input: TownInputs, reads: BatchReads, run: { baseUrl: string; clickKey: string; facts: (p: PlaceRow) => TownSnapshot["facts"]["context"] }): TownSnapshot {
  const { place, date } = town;
  const g = place.geoid;
  return {
    town: { geoid: g, slug: place.slug, name: place.name, stateName: place.state_name, stateCode: place.state_code, timezone: place.timezone, latitude: place.latitude, longitude: place.longitude },
    date,
    baseUrl: run.baseUrl,
    clickKey: run.clickKey,
    weather: input.weather,
    alerts: input.alerts,
    airQuality: input.airQuality,
    feeds: reads.feeds.get(g) ?? null,
    headlinesShownBefore: reads.shown.get(g) ?? [],
    listings: reads.listings.get(g)!,
    note: reads.notes.get(g) ?? null,
    history: reads.history.get(g) ?? [],
    facts: { context: run.facts(place), recent: reads.recentFacts.get(g) ?? [] },
    hazards: reads.hazards.get(g) ?? null,
  };
}
