import { pino, type Logger } from "pino";

export type { Logger };

/** Structured JSON logs on stdout; `LOG_LEVEL=silent` turns them off (tests). */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: "citydaily" } });
}
