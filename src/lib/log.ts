import { pino, type DestinationStream, type Logger } from "pino";
import pretty from "pino-pretty";

export type { Logger };

export interface LoggerOptions {
  /** Human-readable lines instead of JSON; defaults to whether stdout is a terminal. */
  pretty?: boolean;
  /** Where lines go (tests); defaults to stdout. */
  destination?: NodeJS.WritableStream;
}

/** Fields pino adds to every line, or that the pretty line shows elsewhere. */
const HIDDEN = new Set(["level", "time", "pid", "hostname", "service", "msg", "err", "requestId"]);

const value = (v: unknown) => (typeof v === "string" && /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v));

/**
 * One line per event for a person at a terminal: the message, then its plain fields as `key=value`
 * (nested objects such as the morning's full summary stay in the JSON logs; the message says what
 * they add up to). A request is `GET /path 200 1.2 ms`. An error's stack follows only for errors
 * (level 50 and up); expected outages log a warning with the reason alone.
 */
export function prettyLine(log: Record<string, unknown>): string {
  if (log.msg === "request") return `${log.method} ${log.path} ${log.status} ${log.ms} ms`;
  const fields = Object.entries(log)
    .filter(([k, v]) => !HIDDEN.has(k) && v !== undefined && v !== null && typeof v !== "object")
    .map(([k, v]) => `${k}=${value(v)}`);
  const err = log.err as { message?: string; stack?: string } | undefined;
  if (err?.message) fields.push(`error=${value(err.message)}`);
  const line = [String(log.msg ?? ""), ...fields].filter(Boolean).join(" ");
  return err?.stack && Number(log.level) >= 50 ? `${line}\n${err.stack}` : line;
}

/**
 * Logs for people in a terminal (pino-pretty: time, level, one line per event), JSON lines when the
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
    hideObject: true,
    messageFormat: (log) => prettyLine(log),
    destination: opts.destination ?? 1,
  });
  return pino(base, stream);
}
