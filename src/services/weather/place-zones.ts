import { savePlaceZones, subscribedPlacesWithoutZones } from "../../store/sources/run-sources.ts";
import type { AppContext } from "../platform/context.ts";
import { SourceGuard } from "../sources/source-guard.ts";

// Each subscribed town's NWS forecast zone, fire-weather zone and county, from `/points/{lat},{lon}`:
// looked up once, outside the morning (after the scheduler's run, or `npm run zones`), and stored
// (place_zones): zones do not change. Until a town has its row, the morning matches its alerts by
// county (SAME) and polygon (services/sources/run-sources.ts).

/** Towns looked up after each scheduled morning run: a few NWS requests every 15 minutes. */
export const ZONES_PER_TICK = 50;

export interface ZoneLookupSummary {
  asked: number;
  /** Towns now with a forecast zone. */
  found: number;
  /** Towns NWS has no zone for (404): stored as such, not asked again. */
  none: number;
  /** Requests that failed: tried again later. */
  failed: number;
}

export async function lookupTownZones(ctx: AppContext, options: { limit: number; signal?: AbortSignal; concurrency?: number; budgetMs?: number }): Promise<ZoneLookupSummary> {
  const towns = subscribedPlacesWithoutZones(ctx.db, options.limit);
  const summary: ZoneLookupSummary = { asked: towns.length, found: 0, none: 0, failed: 0 };
  if (towns.length === 0) return summary;
  const guard = new SourceGuard({
    provider: "NWS points", concurrency: options.concurrency ?? 2, budgetMs: options.budgetMs ?? ctx.config.sources.runBudgetMs, signal: options.signal, log: ctx.log,
  });
  await Promise.all(towns.map(async (t) => {
    const r = await guard.call(1, (signal) => ctx.sources.alerts.zonesOf({ latitude: t.latitude, longitude: t.longitude }, signal));
    if (!r.ok) {
      summary.failed++;
      return;
    }
    savePlaceZones(ctx.db, { place_geoid: t.geoid, forecast_zone: r.value.forecastZone, fire_zone: r.value.fireZone, county_zone: r.value.county }, ctx.config.now().toISOString());
    if (r.value.forecastZone) summary.found++;
    else summary.none++;
  }));
  if (summary.failed > 0) ctx.log.warn({ ...summary }, "some towns' NWS zones could not be looked up; they are tried again later (county and polygon matching meanwhile)");
  return summary;
}
