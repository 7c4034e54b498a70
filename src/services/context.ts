import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import type { DB } from "../store/db.ts";

/** What every use case gets: the database, the configuration and a logger (plus the integrations it needs). */
export interface AppContext {
  db: DB;
  config: Config;
  log: Logger;
}
