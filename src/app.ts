import { ClickWindow } from "./core/edition/click-links.ts";
import type { Config } from "./config/load.ts";
import { mailFrom } from "./config/mail.ts";
import { PLACES_CSV } from "./config/paths.ts";
import { createAirQualityProvider } from "./integrations/weather/air-quality.ts";
import { createFeedFetcher } from "./integrations/feeds/fetch.ts";
import { createNwsProvider } from "./integrations/hazards/nws.ts";
import { createMailer } from "./integrations/mail/index.ts";
import { createMailWebhooks } from "./integrations/mail/webhooks.ts";
import { createPaymentProvider } from "./integrations/payments/index.ts";
import { createStripeConnect } from "./integrations/payments/stripe-connect.ts";
import { createOpenMeteoProvider } from "./integrations/weather/open-meteo.ts";
import { createLogger, type Logger } from "./lib/log.ts";
import type { AppContext, MailSignal } from "./services/platform/context.ts";
import { createAlertsCache } from "./services/platform/alerts-cache.ts";
import { createHazardProviders } from "./integrations/hazards/providers.ts";
import { createLimits } from "./services/platform/limits.ts";
import { createAppMetrics } from "./services/platform/metrics-registry.ts";
import { createSecrets } from "./services/platform/secrets.ts";
import { createWeatherCache } from "./services/platform/forecast-cache.ts";
import { LIVE_WEATHER_TTL_MS } from "./services/weather/forecast.ts";
import { databaseFile, openDatabase } from "./store/db.ts";
import { createGroupCommit } from "./store/group-commit.ts";
import { importPlaces } from "./store/places/import-places.ts";

/**
 * The composition root: opens the database (migrating and importing places on first start) and
 * wires the integrations. The HTTP server (api/), MCP and every script start from here.
 */
export function createContext(config: Config, log: Logger = createLogger(config.logLevel)): AppContext {
  const db = openDatabase(databaseFile(config.dataDir), { replicated: Boolean(config.replica.target) });
  const started = performance.now();
  const result = importPlaces(db, PLACES_CSV);
  if (result.imported) log.info({ rows: result.rows, ms: Math.round(performance.now() - started) }, "imported places dataset");
  const secrets = createSecrets(db, config);
  return {
    db,
    config,
    log,
    weather: createOpenMeteoProvider({ baseUrl: config.openMeteoUrl, timeoutMs: config.weatherTimeoutMs, now: () => config.now(), apiKey: config.sources.openMeteoApiKey }),
    weatherCache: createWeatherCache({ ttlMs: LIVE_WEATHER_TTL_MS, now: () => config.now() }),
    mailer: createMailer(config),
    mail: createMailSignal(),
    mailWebhooks: createMailWebhooks(config.mail.webhooks),
    limits: createLimits(config),
    clickWindow: new ClickWindow(),
    secrets,
    payments: createPaymentProvider(config, db, secrets.stored),
    connect: config.stripeSecretKey ? createStripeConnect({ secretKey: config.stripeSecretKey, apiUrl: config.stripeApiUrl }) : undefined,
    commits: createGroupCommit(db),
    sources: createSourceProviders(config, log),
    hazards: createHazardProviders(config.hazards, sourcesUserAgent(config)),
    metrics: createAppMetrics(),
    directoryImport: { status: "off", since: new Date().toISOString() },
  };
}

/** NWS asks every client to say who it is and how to reach them: the site and its From address. */
export function sourcesUserAgent(config: Config): string {
  const address = /<([^>]+)>/.exec(mailFrom(config))?.[1] ?? mailFrom(config).trim();
  return `citydaily (${config.baseUrl}, ${address})`;
}

function createSourceProviders(config: Config, log: Logger): AppContext["sources"] {
  const s = config.sources;
  const userAgent = sourcesUserAgent(config);
  const alerts = createNwsProvider({ baseUrl: s.nwsApiUrl, userAgent, timeoutMs: s.timeoutMs, now: () => config.now() });
  return {
    alerts,
    alertsCache: createAlertsCache({ provider: alerts, now: () => config.now(), log }),
    airQuality: createAirQualityProvider({ baseUrl: s.airQualityApiUrl, timeoutMs: s.timeoutMs, apiKey: s.openMeteoApiKey }),
    feeds: createFeedFetcher({ allowPrivate: s.feedsAllowPrivate, maxBytes: s.feedMaxBytes, timeoutMs: s.feedTimeoutMs, userAgent, allowAddresses: s.feedsAllowAddresses }),
  };
}

function createMailSignal(): MailSignal {
  const listeners = new Set<() => void>();
  return {
    delivery: { faults: 0, pausedUntil: 0, pausedUntilReal: 0 },
    kick: () => { for (const l of listeners) l(); },
    onKick(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
