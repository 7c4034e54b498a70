import type { Config } from "../config.ts";
import type { Mailer } from "../integrations/mail/types.ts";
import type { WeatherProvider } from "../integrations/weather/types.ts";
import type { Logger } from "../log.ts";
import type { DB } from "../store/db.ts";

/** What every use case gets: the database, the configuration and a logger (plus the integrations it needs). */
export interface AppContext {
  db: DB;
  config: Config;
  log: Logger;
  /** Forecasts (Open-Meteo); the morning pipeline stores them with editions, /api/weather serves them. */
  weather: WeatherProvider;
  /** Email transport (SMTP or .eml outbox folder); only the outbox sender (services/mail-sender.ts) calls it. */
  mailer: Mailer;
}
