import path from "node:path";

/** Runtime configuration, read once from the environment. Every setting has a working default. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  baseUrl: string;
  logLevel: string;
  smtpUrl?: string;
  stripeSecretKey?: string;
  stripeWebhookSecret?: string;
  openMeteoUrl: string;
  censusApiUrl: string;
  censusApiKey?: string;
  publishHour: number;
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

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env.PORT, 4321, "PORT");
  const host = env.HOST || "127.0.0.1";
  const fixedNow = env.NOW ? new Date(env.NOW) : undefined;
  if (fixedNow && Number.isNaN(fixedNow.getTime())) throw new Error(`NOW must be an ISO timestamp, got "${env.NOW}"`);
  const publishHour = int(env.PUBLISH_HOUR, 6, "PUBLISH_HOUR");
  if (publishHour < 0 || publishHour > 23) throw new Error("PUBLISH_HOUR must be 0-23");
  return {
    port,
    host,
    dataDir: path.resolve(env.DATA_DIR || path.join(PROJECT_ROOT, "var")),
    baseUrl: (env.BASE_URL || `http://${host.includes(":") ? `[${host}]` : host}:${port}`).replace(/\/+$/, ""),
    logLevel: env.LOG_LEVEL || "info",
    smtpUrl: env.SMTP_URL || undefined,
    stripeSecretKey: env.STRIPE_SECRET_KEY || undefined,
    stripeWebhookSecret: env.STRIPE_WEBHOOK_SECRET || undefined,
    openMeteoUrl: (env.OPEN_METEO_URL || "https://api.open-meteo.com").replace(/\/+$/, ""),
    censusApiUrl: (env.CENSUS_API_URL || "https://api.census.gov/data").replace(/\/+$/, ""),
    censusApiKey: env.CENSUS_API_KEY || undefined,
    publishHour,
    now: fixedNow ? () => new Date(fixedNow) : () => new Date(),
  };
}
