import path from "node:path";
import { httpConfig, type HttpConfig } from "./http.ts";
import { mailConfig, type MailConfig } from "./mail.ts";
import { int } from "./parse.ts";
import { PROJECT_ROOT } from "./paths.ts";
import { hazardsConfig, sourcesConfig, townDirectoryConfig, type HazardsConfig, type SourcesConfig, type TownDirectoryConfig } from "./sources.ts";
import { securityConfig, type SecurityConfig } from "./security.ts";
import { backupConfig, publishTargetConfig, type BackupConfig, type PublishTargetConfig } from "./targets.ts";
import { monitoringConfig, type MonitoringConfig } from "./monitoring.ts";
import { replicaConfig, type ReplicaConfig } from "./replication.ts";
import { federationConfig, type FederationConfig } from "./federation.ts";

/** Runtime configuration, read once from the environment. Every setting has a working default. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  baseUrl: string;
  /** BASE_URL was set (not derived from HOST and PORT): commands that write links compare it with the site's. */
  baseUrlFromEnv: boolean;
  logLevel: string;
  smtpUrl?: string;
  stripeSecretKey?: string;
  stripeWebhookSecret?: string;
  /** `STRIPE_CONNECT_WEBHOOK_SECRET`: signing secret of a Connect endpoint (events of operators' payout accounts) posting to the same URL. */
  stripeConnectWebhookSecret?: string;
  /** `STRIPE_API_URL`: where the stripe SDK sends requests (default Stripe's API; tests point it at a local stand-in). */
  stripeApiUrl?: string;
  /** `RESERVATION_MINUTES`: how long a town lease checkout holds the town (default 30). */
  reservationMinutes: number;
  /** `LISTING_CHECKOUT_HOURS`: how long a listing's payment link stays open (default 23; Stripe allows at most 24). */
  listingCheckoutHours: number;
  /** `COMMERCE_SWEEP_SECONDS`: how often the server stores what time changed in commerce (default 60; 0 turns it off). */
  commerceSweepSeconds: number;
  openMeteoUrl: string;
  /** Budget for one Open-Meteo request, in milliseconds (`WEATHER_TIMEOUT_MS`). */
  weatherTimeoutMs: number;
  censusApiUrl: string;
  censusApiKey?: string;
  /** The town's public sources beyond the forecast (see `sourcesConfig`). */
  sources: SourcesConfig;
  /** The town directory's open datasets (src/services/directory/import.ts, docs/sources.md). */
  townDirectory: TownDirectoryConfig;
  /** Earthquakes, disaster declarations and their limits (see `hazardsConfig`). */
  hazards: HazardsConfig;
  publishHour: number;
  /** `MORNING_SCHEDULE=off` stops the server's 15-minute morning runs (tests run the pipeline by hand). */
  morningSchedule: boolean;
  /** Bearer token of the endpoints outside the public API (`ADMIN_TOKEN`); unset: they answer 503. */
  adminToken?: string;
  /** Time limits of the HTTP server (see `httpConfig`). */
  http: HttpConfig;
  /** Email delivery and subscription settings (see `mailConfig`). */
  mail: MailConfig;
  /** Where each publish goes besides DATA_DIR/site (see `publishTargetConfig`). */
  publishTarget: PublishTargetConfig;
  /** Scheduled backups to object storage (see `backupConfig`). */
  backup: BackupConfig;
  /** Purchases without a payment provider, browser origins of `/mcp` (see `securityConfig`). */
  security: SecurityConfig;
  /** Continuous replication with Litestream (see `replicaConfig`). */
  replica: ReplicaConfig;
  /** The towns' ActivityPub actors and their deliveries (see `federationConfig`). */
  federation: FederationConfig;
  /** Metrics and the readiness probe (see `monitoringConfig`). */
  monitoring: MonitoringConfig;
  /** The clock: `NOW` pins it (tests, demos), otherwise real time. */
  now: () => Date;
}

/** The public origin: an absolute http(s) URL (every link, problem type and email is built on it). */
function baseUrlOf(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    // reported below
  }
  if (!url || !/^https?:$/.test(url.protocol)) throw new Error(`BASE_URL must be an absolute http(s) URL such as https://citydaily.example, got "${value}"`);
  return value.replace(/\/+$/, "");
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env.PORT, 4321, "PORT");
  const host = env.HOST || "127.0.0.1";
  const fixedNow = env.NOW ? new Date(env.NOW) : undefined;
  if (fixedNow && Number.isNaN(fixedNow.getTime())) throw new Error(`NOW must be an ISO timestamp, got "${env.NOW}"`);
  const publishHour = int(env.PUBLISH_HOUR, 5, "PUBLISH_HOUR");
  if (publishHour < 0 || publishHour > 23) throw new Error("PUBLISH_HOUR must be 0-23");
  const weatherTimeoutMs = int(env.WEATHER_TIMEOUT_MS, 5000, "WEATHER_TIMEOUT_MS");
  if (weatherTimeoutMs <= 0) throw new Error("WEATHER_TIMEOUT_MS must be a positive number of milliseconds");
  const reservationMinutes = int(env.RESERVATION_MINUTES, 30, "RESERVATION_MINUTES");
  if (reservationMinutes < 1 || reservationMinutes > 1440) throw new Error("RESERVATION_MINUTES must be 1-1440");
  const listingCheckoutHours = int(env.LISTING_CHECKOUT_HOURS, 23, "LISTING_CHECKOUT_HOURS");
  if (listingCheckoutHours < 1 || listingCheckoutHours > 24) throw new Error("LISTING_CHECKOUT_HOURS must be 1-24");
  const commerceSweepSeconds = int(env.COMMERCE_SWEEP_SECONDS, 60, "COMMERCE_SWEEP_SECONDS");
  if (commerceSweepSeconds < 0) throw new Error("COMMERCE_SWEEP_SECONDS must be 0 (off) or a number of seconds");
  return {
    port,
    host,
    dataDir: path.resolve(env.DATA_DIR || path.join(PROJECT_ROOT, "var")),
    baseUrl: baseUrlOf(env.BASE_URL || `http://${host.includes(":") ? `[${host}]` : host}:${port}`),
    baseUrlFromEnv: Boolean(env.BASE_URL),
    logLevel: env.LOG_LEVEL || "info",
    smtpUrl: env.SMTP_URL || undefined,
    stripeSecretKey: env.STRIPE_SECRET_KEY || undefined,
    stripeWebhookSecret: env.STRIPE_WEBHOOK_SECRET || undefined,
    stripeConnectWebhookSecret: env.STRIPE_CONNECT_WEBHOOK_SECRET || undefined,
    stripeApiUrl: env.STRIPE_API_URL || undefined,
    reservationMinutes,
    listingCheckoutHours,
    commerceSweepSeconds,
    openMeteoUrl: (env.OPEN_METEO_URL || "https://api.open-meteo.com").replace(/\/+$/, ""),
    weatherTimeoutMs,
    censusApiUrl: (env.CENSUS_API_URL || "https://api.census.gov/data").replace(/\/+$/, ""),
    censusApiKey: env.CENSUS_API_KEY || undefined,
    sources: sourcesConfig(env),
    townDirectory: townDirectoryConfig(env),
    hazards: hazardsConfig(env),
    publishHour,
    morningSchedule: env.MORNING_SCHEDULE !== "off",
    adminToken: env.ADMIN_TOKEN || undefined,
    http: httpConfig(env),
    mail: mailConfig(env),
    publishTarget: publishTargetConfig(env),
    backup: backupConfig(env),
    security: securityConfig(env),
    replica: replicaConfig(env),
    federation: federationConfig(env),
    monitoring: monitoringConfig(env),
    now: fixedNow ? () => new Date(fixedNow) : () => new Date(),
  };
}
