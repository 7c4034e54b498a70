import type { ClickWindow } from "../../core/edition/click-links.ts";
import type { Config } from "../../config/load.ts";
import type { AirQualityProvider } from "../../integrations/weather/air-quality.ts";
import type { FeedFetcher } from "../../integrations/feeds/fetch.ts";
import type { Mailer } from "../../integrations/mail/types.ts";
import type { MailWebhooks } from "../../integrations/mail/webhooks.ts";
import type { AlertsProvider } from "../../integrations/hazards/nws.ts";
import type { StripeConnect } from "../../integrations/payments/stripe-connect.ts";
import type { PaymentProvider } from "../../integrations/payments/types.ts";
import type { WeatherProvider } from "../../integrations/weather/types.ts";
import type { Logger } from "../../lib/log.ts";
import type { DB } from "../../store/db.ts";
import type { GroupCommit } from "../../store/group-commit.ts";
import type { HazardProviders } from "../../integrations/hazards/providers.ts";
import type { AlertsCache } from "./alerts-cache.ts";
import type { Limits } from "./limits.ts";
import type { AppMetrics } from "./metrics-registry.ts";
import type { Secrets } from "./secrets.ts";
import type { WeatherCache } from "./forecast-cache.ts";

/** Wakes this process's background mail sender, if it runs one (the server does; most scripts do not). */
export interface MailSignal {
  /** Look for due mail now instead of at the next tick (e.g. right after a subscribe). */
  kick(): void;
  /** Installs the sender's wake-up; returns a function that removes it. */
  onKick(listener: () => void): () => void;
  /**
   * The relay's health as this process's sender last saw it: after a delivery fault (connection,
   * greeting, AUTH, MAIL FROM, DATA) sending pauses until `pausedUntil` (epoch ms), doubling with
   * each fault in a row (services/mail/sender.ts).
   */
  delivery: { faults: number; pausedUntil: number; pausedUntilReal: number };
}

/** The town's public sources beyond the forecast (src/services/sources/town-sources.ts draws on them). */
export interface SourceProviders {
  /** NWS active alerts for a point. */
  alerts: AlertsProvider;
  /** Open-Meteo's U.S. AQI for a point. */
  airQuality: AirQualityProvider;
  /** Fetches feed addresses people gave: public addresses only, size and time limits, conditional requests. */
  feeds: FeedFetcher;
  /** Live alerts per town for /api/weather, reused for a few minutes. */
  alertsCache: AlertsCache;
}

/**
 * The town directory's import that the server starts in the background (src/services/directory/
 * import-on-start.ts), as /readyz shows it. `off`: this process does not import it (a script, or
 * TOWN_DIRECTORY_IMPORT=manual).
 */
export interface DirectoryImportState {
  status: "off" | "checking" | "importing" | "imported" | "unchanged" | "failed" | "stopped";
  /** When the status began (ISO, the real clock). */
  since: string;
  /** Imported: candidates stored and seconds taken; failed: why. */
  candidates?: number;
  seconds?: number;
  error?: string;
}

/**
 * Everything a use case gets: built once by `createContext` (src/app.ts) and shared by the HTTP
 * server, MCP and every script. Per-app state (caches, limiters, secrets) lives here, not in modules.
 */
export interface AppContext {
  db: DB;
  config: Config;
  log: Logger;
  /** Forecasts (Open-Meteo); the morning pipeline stores them with editions, /api/weather serves them. */
  weather: WeatherProvider;
  /** Live forecasts per city for 15 minutes, so a burst of readers makes one upstream call. */
  weatherCache: WeatherCache;
  /** Email transport (SMTP or .eml outbox folder); only the outbox sender (services/mail/sender.ts) calls it. */
  mailer: Mailer;
  mail: MailSignal;
  /** The mail providers' signed bounce/complaint webhooks, those configured (src/integrations/mail/webhooks.ts). */
  mailWebhooks: MailWebhooks;
  /** Write limiters (per client address), taken by operations that declare `rateLimit`. */
  limits: Limits;
  /** The last seconds of /go/ clicks per client address, in memory only: a mail gateway's burst is not counted. */
  clickWindow: ClickWindow;
  secrets: Secrets;
  /** Checkout links and verified payment callbacks: Stripe when STRIPE_SECRET_KEY is set, else the local hosted page. */
  payments: PaymentProvider;
  /** Stripe mode only: operators' payout accounts, transfers and the customer portal (src/integrations/payments/stripe-connect.ts). */
  connect: StripeConnect | undefined;
  /** Writes that must be on disk before their answer, committed together per event-loop turn. */
  commits: GroupCommit;
  sources: SourceProviders;
  /** Hazards every town shares, asked once per morning run (src/services/weather/hazards.ts). */
  hazards: HazardProviders;
  /** This app's Prometheus registry (never the global one): served by the metrics server when METRICS_PORT is set. */
  metrics: AppMetrics;
  /** The town directory's import at the server's start, for /readyz. */
  directoryImport: DirectoryImportState;
}
