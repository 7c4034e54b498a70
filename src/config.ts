import fs from "node:fs";
import path from "node:path";

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
  /** The clock: `NOW` pins it (tests, demos), otherwise real time. */
  now: () => Date;
}

export const PROJECT_ROOT = path.resolve(import.meta.dirname, "..");
export const PLACES_CSV = path.join(PROJECT_ROOT, "content/data/us-places.csv");

function int(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new Error(`${name} must be an integer, got "${value}"`);
  return n;
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const n = int(env[name], fallback, name);
  if (n <= 0) throw new Error(`${name} must be a positive integer`);
  return n;
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
  const publishHour = int(env.PUBLISH_HOUR, 6, "PUBLISH_HOUR");
  if (publishHour < 0 || publishHour > 23) throw new Error("PUBLISH_HOUR must be 0-23");
  const weatherTimeoutMs = int(env.WEATHER_TIMEOUT_MS, 5000, "WEATHER_TIMEOUT_MS");
  if (weatherTimeoutMs <= 0) throw new Error("WEATHER_TIMEOUT_MS must be a positive number of milliseconds");
  const reservationMinutes = int(env.RESERVATION_MINUTES, 30, "RESERVATION_MINUTES");
  if (reservationMinutes < 1 || reservationMinutes > 1440) throw new Error("RESERVATION_MINUTES must be 1-1440");
  const listingCheckoutHours = int(env.LISTING_CHECKOUT_HOURS, 23, "LISTING_CHECKOUT_HOURS");
  if (listingCheckoutHours < 1 || listingCheckoutHours > 24) throw new Error("LISTING_CHECKOUT_HOURS must be 1-24");
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
    now: fixedNow ? () => new Date(fixedNow) : () => new Date(),
  };
}

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

/** Time limits that keep slow or stalled clients from holding the server. */
export interface HttpConfig {
  /** `HEADERS_TIMEOUT_MS`: a client has this long to send the request line and headers (then 408). */
  headersTimeoutMs: number;
  /** `REQUEST_TIMEOUT_MS`: ... and this long for the whole request, body included (then 408). */
  requestTimeoutMs: number;
  /** `SHUTDOWN_TIMEOUT_MS`: on SIGTERM, in-flight requests get this long to finish before their connections are cut. */
  shutdownTimeoutMs: number;
}

export function httpConfig(env: NodeJS.ProcessEnv): HttpConfig {
  const positive = (name: string, fallback: number) => positiveInt(env, name, fallback);
  return {
    headersTimeoutMs: positive("HEADERS_TIMEOUT_MS", 10_000),
    requestTimeoutMs: positive("REQUEST_TIMEOUT_MS", 30_000),
    shutdownTimeoutMs: positive("SHUTDOWN_TIMEOUT_MS", 10_000),
  };
}

/** Email settings. The From address defaults to `news@` the BASE_URL host (see `mailFrom`). */
export interface MailConfig {
  /** `MAIL_FROM`, e.g. `citydaily <news@example.com>`. */
  from?: string;
  /** Shown in every email footer (`POSTAL_ADDRESS`); anti-spam law wants a real one. */
  postalAddress: string;
  /** `skipFields` (`DKIM_SKIP_FIELDS`): headers left out of the signature, for relays that rewrite them (Amazon SES: `Message-ID:Date`). */
  dkim?: { domainName: string; keySelector: string; privateKey: string; skipFields?: string };
  /** `UNSUBSCRIBE_SECRET`; unset: a random secret generated once and kept in the database. */
  unsubscribeSecret?: string;
  /** `MAIL_SENDER=off` stops the server's background sender (tests drive it by hand). */
  senderEnabled: boolean;
  /** `MAIL_SEND_INTERVAL_MS`: how often the server's sender looks for due mail. */
  sendIntervalMs: number;
  /** `MAIL_BATCH_SIZE`: outbox rows claimed at once; `MAIL_CONCURRENCY`: SMTP connections (twice as many messages in flight). */
  batchSize: number;
  concurrency: number;
  /** `MAIL_LEASE_SECONDS`: how long a claimed row stays with its sender before another may take it. */
  leaseSeconds: number;
  /** `MAIL_RETRY_BASE_SECONDS` doubled on each temporary failure, up to `MAIL_MAX_ATTEMPTS`. */
  retryBaseSeconds: number;
  maxAttempts: number;
  /** `SUBSCRIBE_RATE_LIMIT`: subscribe requests per client address per `SUBSCRIBE_RATE_WINDOW_SECONDS`. */
  subscribeRateLimit: number;
  subscribeRateWindowSeconds: number;
  /** `TRUST_PROXY_HOPS`: proxies in front of the server whose X-Forwarded-For entries are trusted (0: use the socket address). */
  trustProxyHops: number;
  /** The mail providers' bounce/complaint webhooks (docs/mail.md); a provider left unset answers 503. */
  webhooks: MailWebhookSecrets;
}

export interface MailWebhookSecrets {
  /** `SES_SNS_TOPIC_ARN`: the SNS topic SES publishes bounces and complaints to (no other is accepted). */
  sesTopicArn?: string;
  /** `SENDGRID_WEBHOOK_PUBLIC_KEY`: the Signed Event Webhook's verification key (base64 DER, as SendGrid shows it). */
  sendgridPublicKey?: string;
  /** `POSTMARK_WEBHOOK_USER`, `POSTMARK_WEBHOOK_PASSWORD`: the basic auth credentials put in Postmark's webhook URL. */
  postmarkUser?: string;
  postmarkPassword?: string;
  /** `MAILGUN_WEBHOOK_SIGNING_KEY`: Mailgun's HTTP webhook signing key. */
  mailgunSigningKey?: string;
}

export function mailConfig(env: NodeJS.ProcessEnv): MailConfig {
  const positive = (name: string, fallback: number) => positiveInt(env, name, fallback);
  let dkim: MailConfig["dkim"];
  const dkimKey = env.DKIM_PRIVATE_KEY || (env.DKIM_PRIVATE_KEY_FILE ? fs.readFileSync(env.DKIM_PRIVATE_KEY_FILE, "utf8") : "");
  if (dkimKey) {
    if (!env.DKIM_DOMAIN || !env.DKIM_SELECTOR) throw new Error("DKIM_PRIVATE_KEY needs DKIM_DOMAIN and DKIM_SELECTOR");
    dkim = { domainName: env.DKIM_DOMAIN, keySelector: env.DKIM_SELECTOR, privateKey: dkimKey.replace(/\\n/g, "\n"), ...(env.DKIM_SKIP_FIELDS ? { skipFields: env.DKIM_SKIP_FIELDS } : {}) };
  }
  // The From address's domain is the sending domain (Message-IDs, the unsubscribe mailbox): it must have one.
  if (env.MAIL_FROM && !/@(\[[^\]\s]+\]|[^\s>@]+)>?\s*$/.test(env.MAIL_FROM)) throw new Error(`MAIL_FROM must be an address such as "citydaily <news@example.com>", got "${env.MAIL_FROM}"`);
  return {
    from: env.MAIL_FROM || undefined,
    postalAddress: env.POSTAL_ADDRESS || "citydaily (postal address not configured: set POSTAL_ADDRESS)",
    dkim,
    unsubscribeSecret: env.UNSUBSCRIBE_SECRET || undefined,
    senderEnabled: env.MAIL_SENDER !== "off",
    sendIntervalMs: positive("MAIL_SEND_INTERVAL_MS", 5000),
    batchSize: positive("MAIL_BATCH_SIZE", 200),
    concurrency: positive("MAIL_CONCURRENCY", 5),
    leaseSeconds: positive("MAIL_LEASE_SECONDS", 120),
    retryBaseSeconds: int(env.MAIL_RETRY_BASE_SECONDS, 60, "MAIL_RETRY_BASE_SECONDS"),
    maxAttempts: positive("MAIL_MAX_ATTEMPTS", 8),
    subscribeRateLimit: positive("SUBSCRIBE_RATE_LIMIT", 10),
    subscribeRateWindowSeconds: positive("SUBSCRIBE_RATE_WINDOW_SECONDS", 600),
    trustProxyHops: int(env.TRUST_PROXY_HOPS, 0, "TRUST_PROXY_HOPS"),
    webhooks: {
      sesTopicArn: env.SES_SNS_TOPIC_ARN || undefined,
      sendgridPublicKey: env.SENDGRID_WEBHOOK_PUBLIC_KEY || undefined,
      postmarkUser: env.POSTMARK_WEBHOOK_USER || undefined,
      postmarkPassword: env.POSTMARK_WEBHOOK_PASSWORD || undefined,
      mailgunSigningKey: env.MAILGUN_WEBHOOK_SIGNING_KEY || undefined,
    },
  };
}

/**
 * The From header: `MAIL_FROM`, or `citydaily <news@host>` with the BASE_URL host. An IP host is
 * written as an RFC 5322 address literal (`news@[127.0.0.1]`, `news@[IPv6:::1]`): the mail then
 * names the machine that sends it, and Message-IDs stay on that sending domain, never `localhost`.
 */
export function mailFrom(config: Config): string {
  if (config.mail.from) return config.mail.from;
  return `citydaily <news@${mailDomainOf(config.baseUrl)}>`;
}

/** The domain part of a mailbox on the BASE_URL host: its name, or an address literal for an IP. */
export function mailDomainOf(baseUrl: string): string {
  const host = new URL(baseUrl).hostname; // WHATWG URL: IPv6 in brackets, IPv4 normalised
  if (host.startsWith("[")) return `[IPv6:${host.slice(1, -1)}]`;
  return /^\d+\.\d+\.\d+\.\d+$/.test(host) ? `[${host}]` : host;
}

/**
 * `PUBLISH_TARGET`: `local` (the default: the server serves DATA_DIR/site itself) or
 * `s3://bucket/prefix` (each publish is also mirrored to S3-compatible object storage for a CDN).
 */
export type PublishTargetConfig = { kind: "local" } | S3TargetConfig;

export interface S3TargetConfig {
  kind: "s3";
  bucket: string;
  /** Key prefix, empty or ending in "/". */
  prefix: string;
  /** `AWS_REGION` (default us-east-1; R2 wants `auto`). */
  region: string;
  /** `AWS_ENDPOINT_URL` or `S3_ENDPOINT`: MinIO, R2, GCS interoperability...; unset: AWS S3. */
  endpoint?: string;
  /** `S3_FORCE_PATH_STYLE=true`: bucket in the path rather than the host name (MinIO, local servers). */
  forcePathStyle: boolean;
  /** `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY`; unset: the SDK's default chain (instance role, profile...). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** `S3_CONCURRENCY`: uploads in flight at once (default 16). */
  concurrency: number;
}

export function publishTargetConfig(env: NodeJS.ProcessEnv): PublishTargetConfig {
  const value = env.PUBLISH_TARGET || "local";
  if (value === "local") return { kind: "local" };
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(value);
  if (!m) throw new Error(`PUBLISH_TARGET must be "local" or s3://bucket/prefix, got "${value}"`);
  const prefix = (m[2] ?? "").replace(/^\/+|\/+$/g, "");
  const concurrency = int(env.S3_CONCURRENCY, 16, "S3_CONCURRENCY");
  if (concurrency < 1 || concurrency > 256) throw new Error("S3_CONCURRENCY must be 1-256");
  const endpoint = env.AWS_ENDPOINT_URL || env.S3_ENDPOINT || undefined;
  if (endpoint && !/^https?:\/\//.test(endpoint)) throw new Error(`AWS_ENDPOINT_URL must be an http(s) URL, got "${endpoint}"`);
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey } = env;
  return {
    kind: "s3",
    bucket: m[1],
    prefix: prefix ? `${prefix}/` : "",
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || "us-east-1",
    endpoint,
    forcePathStyle: env.S3_FORCE_PATH_STYLE === "true" || env.S3_FORCE_PATH_STYLE === "1",
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    concurrency,
  };
}

/**
 * Continuous backup: `BACKUP_TARGET=s3://bucket/prefix` makes the server copy the database
 * (`VACUUM INTO`) every `BACKUP_INTERVAL_SECONDS` (default 3600) and upload it there, keeping the
 * newest `BACKUP_KEEP` (default 48) copies. The bucket settings (`AWS_*`, `S3_FORCE_PATH_STYLE`) are
 * the publish target's. Unset: no scheduled backup (`npm run backup` still works).
 */
export interface BackupConfig {
  target?: S3TargetConfig;
  intervalSeconds: number;
  keep: number;
}

export function backupConfig(env: NodeJS.ProcessEnv): BackupConfig {
  const intervalSeconds = positiveInt(env, "BACKUP_INTERVAL_SECONDS", 3600);
  const keep = positiveInt(env, "BACKUP_KEEP", 48);
  if (!env.BACKUP_TARGET) return { intervalSeconds, keep };
  const target = publishTargetConfig({ ...env, PUBLISH_TARGET: env.BACKUP_TARGET });
  if (target.kind !== "s3") throw new Error(`BACKUP_TARGET must be s3://bucket/prefix, got "${env.BACKUP_TARGET}"`);
  return { target, intervalSeconds, keep };
}
