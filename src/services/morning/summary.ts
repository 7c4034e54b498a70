import type { Lease } from "../../store/morning/due-towns.ts";
import type { AppContext } from "../platform/context.ts";
import type { ProviderStats } from "../sources/source-guard.ts";
import type { RefreshSummary } from "../sources/town-sources.ts";
import { formatHazardsSummary, type HazardsSummary } from "../weather/hazards.ts";

// The morning's figures: what a run did, as an object (JSON logs) and as the one line a terminal shows.

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
  /** Weekly emails put in the outbox by this run (absent in a run that published nothing). */
  weekliesQueued?: number;
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

/**
 * One line an operator can act on when towns went without a forecast because Open-Meteo's free
 * tier refused (429) or its window from an earlier 429 was still closed.
 */
export function reportProviders(ctx: AppContext, s: MorningSummary): void {
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
    + `${s.published} published${site}, ${s.pagesWritten} pages written, ${s.digestsQueued} digests queued${s.weekliesQueued ? `, ${s.weekliesQueued} weekly emails queued` : ""}${feeds}${providers}${s.hazards ? `; ${formatHazardsSummary(s.hazards)}` : ""}; ${(s.ms / 1000).toFixed(2)} s`;
}
