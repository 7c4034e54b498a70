import { pino, type DestinationStream, type Logger } from "pino";
import pretty from "pino-pretty";

export type { Logger };

export interface LoggerOptions {
  /** Human-readable lines instead of JSON; defaults to whether stdout is a terminal. */
  pretty?: boolean;
  /** Where lines go (tests); defaults to stdout. */
  destination?: NodeJS.WritableStream;
}

/**
 * Logs for people in a terminal (pino-pretty: time, level, message, fields), JSON lines when the
 * output is a file, a pipe or a log collector. `LOG_LEVEL=silent` turns them off (tests).
 */
export function createLogger(level: string, opts: LoggerOptions = {}): Logger {
  const base = { level, base: { service: "citydaily" } };
  const human = opts.pretty ?? Boolean(process.stdout.isTTY);
  if (!human) return opts.destination ? pino(base, opts.destination as DestinationStream) : pino(base);
  // In-process and synchronous (no worker thread): lines written just before exit are not lost.
  const stream = pretty({
    sync: true,
    colorize: opts.destination ? false : pretty.isColorSupported,
    translateTime: "SYS:HH:MM:ss.l",
    ignore: "pid,hostname,service",
    destination: opts.destination ?? 1,
  });
  return pino(base, stream);
}
