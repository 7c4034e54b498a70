import { semaphore } from "../../lib/semaphore.ts";
import type { HazardProviders } from "../../integrations/hazards/providers.ts";
import {
  UV_SHOWN_FROM, type Declaration, type HazardPlace, type Quake, type RunHazards, type TideDay,
  type TownHazards,
} from "../../core/hazards/town-hazards.ts";
import { localDate } from "../../lib/time.ts";
import type { ConditionalItems, Validators } from "../../integrations/http-json.ts";
import { getMeta, setMeta } from "../../store/platform/meta.ts";
import { SourceGuard } from "../sources/source-guard.ts";
import { hazardSource, recordHazardFailure, recordHazardNotModified, recordHazardOk } from "../../store/sources/hazards.ts";
import type { DB } from "../../store/db.ts";
import type { PlaceRow } from "../../store/places/places.ts";
import type { AppContext } from "../platform/context.ts";

// The hazards every town shares, gathered once per morning run: one USGS request (the world's quakes
// of the past day) and one OpenFEMA request (the week's declarations) however many towns are due,
// both at once, each within its time limit and behind its SourceGuard (as every outside source of the
// morning: src/services/sources/source-guard.ts, with the pause across runs); tides are computed locally
// (no request). Each town's edition then takes its part (core/hazards/town-hazards.ts). A provider that is down,
// slow or wrong gives nothing: the editions go out without its lines.

/** One provider's part of a run, for the morning summary. */
export interface ProviderSummary {
  requests: number;
  notModified: number;
  failures: number;
  /** Not asked this run: the breaker was open (or Retry-After said to wait). */
  skipped: number;
  /** Towns whose edition carries a line from it. */
  townsServed: number;
}

export interface HazardsSummary {
  usgs: ProviderSummary;
  openfema: ProviderSummary;
  /** Computed locally: `requests` stays 0. */
  tides: ProviderSummary;
  /** From the forecast already fetched per town: `requests` stays 0. */
  uv: ProviderSummary;
  ms: number;
}

export interface GatheredHazards {
  run: RunHazards;
  summary: HazardsSummary;
}

/** The last good answer serves a run whose request failed for this long after it came. */
export const KEPT_MS = { usgs: 3 * 3_600_000, openfema: 30 * 3_600_000 } as const;

const empty = (): ProviderSummary => ({ requests: 0, notModified: 0, failures: 0, skipped: 0, townsServed: 0 });

type Provider = keyof typeof KEPT_MS;

const PROVIDER_NAMES: Record<Provider, string> = { usgs: "USGS earthquakes", openfema: "OpenFEMA declarations" };

/** The items of the provider's last good answer, if recent enough to serve at `now`. */
function keptItems<T>(db: DB, provider: Provider, now: Date): T[] | null {
  const row = hazardSource(db, provider);
  if (!row?.items_json || !row.fetched_at) return null;
  const age = now.getTime() - Date.parse(row.fetched_at);
  if (!(age >= 0 && age <= KEPT_MS[provider])) return null;
  try {
    return JSON.parse(row.items_json) as T[];
  } catch {
    return null;
  }
}

/**
 * The provider's guard for this run, as every outside source has one (src/services/sources/source-guard.ts):
 * its time budget, 429 windows kept across runs, and the pause across runs of a provider that keeps
 * failing, kept in its hazard_sources row with its last answer.
 */
function hazardGuard(ctx: AppContext, provider: Provider, now: Date, stop: AbortSignal | undefined): SourceGuard {
  const row = hazardSource(ctx.db, provider);
  const name = PROVIDER_NAMES[provider];
  return new SourceGuard({
    provider: name,
    concurrency: 1,
    budgetMs: ctx.hazards.config.budgetMs,
    signal: stop,
    log: ctx.log,
    blockStore: { get: () => getMeta(ctx.db, `sources.blocked.${provider}`), set: (v) => setMeta(ctx.db, `sources.blocked.${provider}`, v) },
    pause: {
      now,
      state: row ? { failures: row.consecutive_failures, openUntil: row.open_until } : undefined,
      failed: ({ reason, failures, openUntil }) => {
        recordHazardFailure(ctx.db, provider, reason, openUntil);
        ctx.log.warn({ provider, reason, failures, openUntil }, "hazard provider unavailable; the editions go without it");
      },
    },
  });
}

/**
 * Asks one provider once, through its guard: not at all while its pause is on; otherwise one
 * request with the last answer's validators. Returns the items to use this run (a 304, or a failure
 * within KEPT_MS of the last good answer, gives the kept ones) or null. Never throws.
 */
async function askProvider<T>(ctx: AppContext, provider: Provider, now: Date, summary: ProviderSummary, guard: SourceGuard,
  ask: (validators: Validators | null, signal: AbortSignal) => Promise<ConditionalItems<T>>): Promise<T[] | null> {
  const row = hazardSource(ctx.db, provider);
  const validators = row?.items_json ? { etag: row.etag, lastModified: row.last_modified } : null;
  const r = await guard.call(0, (signal) => ask(validators, signal));
  const stats = guard.finish();
  Object.assign(summary, { requests: stats.requests, failures: stats.failures + stats.rateLimited, skipped: stats.skipped });
  if (!r.ok) return keptItems<T>(ctx.db, provider, now);
  const at = now.toISOString();
  if (r.value.status === "not-modified") {
    summary.notModified++;
    recordHazardNotModified(ctx.db, provider, at);
    return keptItems<T>(ctx.db, provider, now);
  }
  recordHazardOk(ctx.db, provider, at, { itemsJson: JSON.stringify(r.value.items), etag: r.value.validators.etag, lastModified: r.value.validators.lastModified });
  return r.value.items;
}

/** The place as core/hazards/town-hazards.ts matches it. */
export function hazardPlace(place: PlaceRow): HazardPlace {
  return { geoid: place.geoid, latitude: place.latitude, longitude: place.longitude, timezone: place.timezone, countyGeoid: place.county_geoid ?? null };
}

/**
 * The run's hazards for these towns: USGS and OpenFEMA each asked once (alongside each other, at most
 * `concurrency` at once, each within its timeout, the whole within the run's budget), and each
 * town's tides for its local date at `now`, computed locally. Never throws; a provider that gave
 * nothing is null in the result and counted in the summary.
 */
export async function gatherRunHazards(ctx: AppContext, places: PlaceRow[], options: { now: Date; signal?: AbortSignal }): Promise<GatheredHazards> {
  const started = performance.now();
  const { now } = options;
  const { budgetMs, concurrency } = ctx.hazards.config;
  const budget = AbortSignal.timeout(budgetMs);
  const signal = options.signal ? AbortSignal.any([options.signal, budget]) : budget;
  const summary: HazardsSummary = { usgs: empty(), openfema: empty(), tides: empty(), uv: empty(), ms: 0 };
  const lane = semaphore(concurrency);
  // Tides are computed in their worker thread meanwhile (no request), each town for its local date.
  const tides = new Map<string, TideDay | null>();
  const stopped = new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true })));
  const tidesDone = Promise.race([stopped, Promise.all(places.map(async (place) => {
    try {
      const t = await ctx.hazards.tides.day(place, localDate(now, place.timezone));
      if (!signal.aborted) tides.set(place.geoid, t);
    } catch (err) {
      summary.tides.failures++;
      ctx.log.warn({ reason: (err as Error).message, slug: place.slug }, "tide prediction failed; the edition goes without tides");
    }
  }))]);
  const [quakes, declarations] = await Promise.all([
    lane(() => askProvider<Quake>(ctx, "usgs", now, summary.usgs, hazardGuard(ctx, "usgs", now, options.signal), (v, s) => ctx.hazards.earthquakes.recent(v, s))),
    lane(() => askProvider<Declaration>(ctx, "openfema", now, summary.openfema, hazardGuard(ctx, "openfema", now, options.signal), (v, s) => ctx.hazards.declarations.recent(now, v, s))),
  ]);
  // A town whose tides were not ready within the budget goes without them today.
  await tidesDone;
  summary.ms = Math.round(performance.now() - started);
  return { run: { at: now.toISOString(), quakes, declarations, tides }, summary };
}

/** Counts one composed edition in the summary's `townsServed`. */
export function countServed(summary: HazardsSummary, h: TownHazards, uvIndexMax: number | null | undefined): void {
  if (h.quakes.length > 0) summary.usgs.townsServed++;
  if (h.declarations.length > 0) summary.openfema.townsServed++;
  if (h.tides && h.tides.extremes.length > 0) summary.tides.townsServed++;
  if (uvIndexMax != null && Math.round(uvIndexMax) >= UV_SHOWN_FROM) summary.uv.townsServed++;
}

/** "hazards: USGS 1 request (0 unchanged, 0 failed, 2 towns); OpenFEMA ...; tides 3 towns (no request); UV 1 town". */
export function formatHazardsSummary(s: HazardsSummary): string {
  const towns = (n: number) => `${n} ${n === 1 ? "town" : "towns"}`;
  const provider = (name: string, p: ProviderSummary) =>
    `${name} ${p.requests} ${p.requests === 1 ? "request" : "requests"} (${p.notModified} unchanged, ${p.failures} failed${p.skipped ? `, skipped: breaker open` : ""}), ${towns(p.townsServed)}`;
  return `hazards: ${provider("USGS", s.usgs)}; ${provider("OpenFEMA", s.openfema)}; tides ${towns(s.tides.townsServed)} (no request); UV ${towns(s.uv.townsServed)}`;
}
