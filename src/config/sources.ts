import path from "node:path";
import { positiveInt } from "./parse.ts";
import { PROJECT_ROOT } from "./paths.ts";

export interface TownDirectoryConfig {
  /** `TOWN_SOURCES_DIR`: the folder of the open datasets (default content/data/sources; same file names and formats). */
  dir: string;
  /** `TOWN_DIRECTORY_IMPORT`: `start` (default) imports them when the server starts and they (or the rules) changed; `manual`: only `npm run admin -- directory import`. */
  importOnStart: boolean;
}

export function townDirectoryConfig(env: NodeJS.ProcessEnv): TownDirectoryConfig {
  const mode = env.TOWN_DIRECTORY_IMPORT || "start";
  if (mode !== "start" && mode !== "manual") throw new Error(`TOWN_DIRECTORY_IMPORT must be start or manual, got "${mode}"`);
  return { dir: path.resolve(env.TOWN_SOURCES_DIR || path.join(PROJECT_ROOT, "content/data/sources")), importOnStart: mode === "start" };
}

/** NWS alerts, air quality and the towns' feeds (src/integrations/hazards/nws.ts, air-quality.ts, feeds/). */
export interface SourcesConfig {
  /** `NWS_API_URL`: api.weather.gov's origin. */
  nwsApiUrl: string;
  /** `AIR_QUALITY_API_URL`: Open-Meteo's air-quality API origin. */
  airQualityApiUrl: string;
  /** `SOURCES_TIMEOUT_MS`: budget of one NWS or air-quality request. */
  timeoutMs: number;
  /** `FEEDS_ALLOW_PRIVATE=true`: feeds may be fetched from private, loopback and link-local addresses (tests and local use only). */
  feedsAllowPrivate: boolean;
  /** `FEED_MAX_BYTES`: a feed larger than this is cut off and refused. */
  feedMaxBytes: number;
  /** `FEED_TIMEOUT_MS`: budget of one feed fetch, body and redirects included. */
  feedTimeoutMs: number;
  /** `FEED_HOST_CONCURRENCY`: feed fetches in flight to one host during the morning refresh. */
  feedHostConcurrency: number;
  /** `FEEDS_ALLOW_ADDRESSES`: comma-separated addresses or CIDR ranges fetched even though private (tests reach 127.0.0.1 while every other private address stays refused). */
  feedsAllowAddresses: string[];
  /** `LEGISTAR_API_URL`: Legistar's public Web API origin (council meetings of the directory's Legistar clients). */
  legistarApiUrl: string;
  /** `DIRECTORY_CHECKS_PER_HOUR`: directory sites the server verifies per hour in the background (0: off). */
  directoryChecksPerHour: number;
  /** `OPEN_METEO_API_KEY`: a paid Open-Meteo plan's key, sent as `apikey` (set OPEN_METEO_URL and AIR_QUALITY_API_URL to its customer hosts). */
  openMeteoApiKey?: string;
  /** `SOURCES_RUN_CONCURRENCY`: requests in flight to one provider during the morning's gathering. */
  runConcurrency: number;
  /** `SOURCES_RUN_BUDGET_MS`: the morning's time budget per provider (waiting out a minute's 429 included). */
  runBudgetMs: number;
}

export function sourcesConfig(env: NodeJS.ProcessEnv): SourcesConfig {
  const positive = (name: string, fallback: number) => positiveInt(env, name, fallback);
  const origin = (name: string, fallback: string) => {
    const value = (env[name] || fallback).replace(/\/+$/, "");
    if (!/^https?:\/\/[^/]/.test(value)) throw new Error(`${name} must be an http(s) URL, got "${value}"`);
    return value;
  };
  return {
    nwsApiUrl: origin("NWS_API_URL", "https://api.weather.gov"),
    airQualityApiUrl: origin("AIR_QUALITY_API_URL", "https://air-quality-api.open-meteo.com"),
    timeoutMs: positive("SOURCES_TIMEOUT_MS", 5000),
    feedsAllowPrivate: env.FEEDS_ALLOW_PRIVATE === "true",
    feedMaxBytes: positive("FEED_MAX_BYTES", 2 * 1024 * 1024),
    feedTimeoutMs: positive("FEED_TIMEOUT_MS", 5000),
    feedHostConcurrency: positive("FEED_HOST_CONCURRENCY", 4),
    feedsAllowAddresses: (env.FEEDS_ALLOW_ADDRESSES ?? "").split(",").map((s) => s.trim()).filter(Boolean),
    legistarApiUrl: origin("LEGISTAR_API_URL", "https://webapi.legistar.com"),
    directoryChecksPerHour: env.DIRECTORY_CHECKS_PER_HOUR === "0" ? 0 : positive("DIRECTORY_CHECKS_PER_HOUR", 12),
    openMeteoApiKey: env.OPEN_METEO_API_KEY || undefined,
    runConcurrency: positive("SOURCES_RUN_CONCURRENCY", 4),
    runBudgetMs: positive("SOURCES_RUN_BUDGET_MS", 180_000),
  };
}

/** The hazards every town shares (src/services/weather/hazards.ts): USGS earthquakes and OpenFEMA declarations, once per run. */
export interface HazardsConfig {
  /** `USGS_EARTHQUAKES_URL`: earthquake.usgs.gov's origin. */
  usgsUrl: string;
  /** `OPENFEMA_API_URL`: OpenFEMA's API root. */
  openFemaUrl: string;
  /** `HAZARDS_TIMEOUT_MS`: budget of one provider request, body included. */
  timeoutMs: number;
  /** `HAZARDS_BUDGET_MS`: the whole gathering of a run (every provider, and the towns' tides). */
  budgetMs: number;
  /** `HAZARDS_CONCURRENCY`: provider requests in flight at once. */
  concurrency: number;
}

export function hazardsConfig(env: NodeJS.ProcessEnv): HazardsConfig {
  const url = (name: string, fallback: string) => {
    const value = (env[name] || fallback).replace(/\/+$/, "");
    if (!/^https?:\/\/[^/]/.test(value)) throw new Error(`${name} must be an http(s) URL, got "${value}"`);
    return value;
  };
  return {
    usgsUrl: url("USGS_EARTHQUAKES_URL", "https://earthquake.usgs.gov"),
    openFemaUrl: url("OPENFEMA_API_URL", "https://www.fema.gov/api/open"),
    timeoutMs: positiveInt(env, "HAZARDS_TIMEOUT_MS", 8000),
    budgetMs: positiveInt(env, "HAZARDS_BUDGET_MS", 15_000),
    concurrency: positiveInt(env, "HAZARDS_CONCURRENCY", 2),
  };
}
