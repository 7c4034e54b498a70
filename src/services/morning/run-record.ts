import { recordMorningRun } from "../../store/platform/monitoring.ts";
import type { AppContext } from "../platform/context.ts";
import type { ProviderSummary } from "../weather/hazards.ts";
import type { MorningSummary } from "./summary.ts";

// A finished run's figures, kept in the database for /metrics (services/platform/metrics.ts): the
// last run's counts, and each outside source's requests, 429s and failures added to its totals.
// Kept there rather than in this process's memory so a run of `npm run morning` counts too.

/** "Open-Meteo forecast" -> "open-meteo-forecast": the `source` label. */
export const sourceLabel = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");

function hazardSource(source: string, s: ProviderSummary) {
  // Asked nothing and skipped: its breaker is open across runs (or a Retry-After keeps it away).
  return { source, requests: s.requests, rateLimited: 0, failures: s.failures, circuitOpen: s.requests === 0 && s.skipped > 0, townsWithout: 0 };
}

/** The sources' part of a summary, one entry per source. */
export function runSources(s: MorningSummary) {
  const out = (s.providers ?? []).map((p) => ({
    source: sourceLabel(p.provider), requests: p.requests, rateLimited: p.rateLimited, failures: p.failures,
    circuitOpen: p.circuitOpen || Boolean(p.blocked), townsWithout: p.townsWithout,
  }));
  if (s.hazards) out.push(hazardSource("usgs-earthquakes", s.hazards.usgs), hazardSource("openfema-declarations", s.hazards.openfema));
  // Town feeds are many hosts, each with its own guard: counted as one source here (a label per host would not stay bounded).
  if (s.feeds && s.feeds.sources > 0) {
    const f = s.feeds;
    out.push({ source: "town-feeds", requests: f.fetched + f.notModified + f.failed, rateLimited: 0, failures: f.failed, circuitOpen: false, townsWithout: 0 });
  }
  return out;
}

/**
 * Records a run that finished (not one another run kept out, nor one stopped halfway); never throws.
 * On the run's clock: it finished at its `now` (`s.at`) plus the time it took, so a run with a pinned
 * `NOW` records the same instants whenever it is run.
 */
export function recordRun(ctx: AppContext, s: MorningSummary): void {
  if (s.busy || s.stopped) return;
  try {
    recordMorningRun(ctx.db, {
      at: s.at, finishedAt: new Date(Date.parse(s.at) + s.ms).toISOString(), due: s.due, composed: s.composed, withoutWeather: s.withoutWeather, failed: s.failed, ms: s.ms,
    }, runSources(s));
  } catch (err) {
    ctx.log.error({ err }, "recording the morning's figures for /metrics failed");
  }
}
