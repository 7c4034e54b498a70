import { cachedStatement, type DB } from "../db.ts";
import { getMeta, setMeta } from "./meta.ts";

// What /metrics and /readyz read at the moment they are asked (nothing is sampled on a timer), and
// the few figures the morning leaves behind for them in the `meta` table.

export interface OutboxFigures {
  pending: number;
  /** created_at of the oldest pending message (ISO), if any. */
  oldestPendingAt: string | null;
  sent: number;
  failed: number;
}

export function outboxFigures(db: DB): OutboxFigures {
  const byStatus = cachedStatement(db, "SELECT status, COUNT(*) AS n FROM outbox GROUP BY status").all() as Array<{ status: string; n: number }>;
  const count = (status: string) => byStatus.find((r) => r.status === status)?.n ?? 0;
  const oldest = cachedStatement(db, "SELECT MIN(created_at) FROM outbox WHERE status = 'pending'").pluck().get() as string | null;
  return { pending: count("pending") + count("sending"), oldestPendingAt: oldest, sent: count("sent"), failed: count("failed") };
}

/** Bounces and complaints received, all time (the append-only mail history). */
export function feedbackTotals(db: DB): { bounced: number; complained: number } {
  const rows = cachedStatement(db, "SELECT kind, COUNT(*) AS n FROM mail_events WHERE kind IN ('bounced', 'complained') GROUP BY kind").all() as Array<{ kind: string; n: number }>;
  return { bounced: rows.find((r) => r.kind === "bounced")?.n ?? 0, complained: rows.find((r) => r.kind === "complained")?.n ?? 0 };
}

/**
 * The oldest due message still unsent (epoch ms it fell due), and when the newest sent one went
 * out: mail due long ago with nothing sent since is a stalled sender, not a busy one.
 */
export function senderProgress(db: DB, nowMs: number): { oldestDueAt: number | null; lastSentAt: string | null } {
  // Claimed rows count too: a sender hung on a silent relay holds them in 'sending'.
  const oldestDueAt = cachedStatement(db, "SELECT MIN(next_attempt_at) FROM outbox WHERE status IN ('pending', 'sending') AND next_attempt_at <= ?").pluck().get(nowMs) as number | null;
  // Newest rows first: the last sent is near the end of the table.
  const lastSentAt = cachedStatement(db, "SELECT sent_at FROM outbox WHERE status = 'sent' ORDER BY id DESC LIMIT 1").pluck().get() as string | null | undefined;
  return { oldestDueAt, lastSentAt: lastSentAt ?? null };
}

/** Every time zone a town is in. */
export function placeTimezones(db: DB): string[] {
  return cachedStatement(db, "SELECT DISTINCT timezone FROM places ORDER BY timezone").pluck().all() as string[];
}

/**
 * Per time zone given (with the local date there), the subscribed towns and those of them without
 * an edition for that date: one pass over the subscribed towns.
 */
export function editionsOwed(db: DB, dates: Record<string, string>): Array<{ timezone: string; towns: number; without: number }> {
  return cachedStatement(db, `
    WITH d (timezone, date) AS (SELECT key, value FROM json_each(?))
    SELECT p.timezone, COUNT(*) AS towns,
           SUM(NOT EXISTS (SELECT 1 FROM editions e WHERE e.place_geoid = p.geoid AND e.date = d.date)) AS without
    FROM places p JOIN d ON d.timezone = p.timezone
    WHERE p.geoid IN (SELECT place_geoid FROM subscribers WHERE status = 'active')
    GROUP BY p.timezone ORDER BY p.timezone`).all(JSON.stringify(dates)) as Array<{ timezone: string; towns: number; without: number }>;
}

/** A real read (the readiness probe). */
export function readProbe(db: DB): void {
  cachedStatement(db, "SELECT COUNT(*) FROM meta").pluck().get();
}

/**
 * A real, committed write (the readiness probe): the database takes writes, not only reads. Waits
 * `busyMs` at most for another process's write lock (synchronous on the one connection: nothing
 * else runs on it meanwhile, so the shorter wait is the probe's alone).
 */
export function writeProbe(db: DB, at: string, busyMs: number): void {
  const busy = db.pragma("busy_timeout", { simple: true }) as number;
  db.pragma(`busy_timeout = ${busyMs}`);
  try {
    db.transaction(() => setMeta(db, "health.probe", at)).immediate();
  } finally {
    if (db.open) db.pragma(`busy_timeout = ${busy}`);
  }
}

// ---------- what the morning leaves for /metrics ----------

const LAST_RUN_KEY = "morning.last_run";
const SOURCE_TOTALS_KEY = "sources.totals";

/** The last finished morning run's figures. */
export interface MorningRunRecord {
  /** The run's "now" (ISO). */
  at: string;
  /** When it finished (ISO, real time). */
  finishedAt: string;
  due: number;
  composed: number;
  withoutWeather: number;
  failed: number;
  ms: number;
}

/** One source over every run: its counters, and how it stood at the end of the last run. */
export interface SourceTotals {
  requests: number;
  rateLimited: number;
  failures: number;
  /** The last run: the circuit opened, a 429's window still closed, or left alone by a pause. */
  circuitOpen: boolean;
  townsWithout: number;
}

export function lastMorningRun(db: DB): MorningRunRecord | undefined {
  return parse<MorningRunRecord>(getMeta(db, LAST_RUN_KEY));
}

export function sourceTotals(db: DB): Record<string, SourceTotals> {
  return parse<Record<string, SourceTotals>>(getMeta(db, SOURCE_TOTALS_KEY)) ?? {};
}

/** Stores a finished run and adds its sources' figures to the totals, in one transaction. */
export function recordMorningRun(db: DB, run: MorningRunRecord, sources: Array<{ source: string; requests: number; rateLimited: number; failures: number; circuitOpen: boolean; townsWithout: number }>): void {
  db.transaction(() => {
    setMeta(db, LAST_RUN_KEY, JSON.stringify(run));
    const totals = sourceTotals(db);
    for (const s of sources) {
      const t = totals[s.source] ?? { requests: 0, rateLimited: 0, failures: 0, circuitOpen: false, townsWithout: 0 };
      totals[s.source] = {
        requests: t.requests + s.requests, rateLimited: t.rateLimited + s.rateLimited, failures: t.failures + s.failures,
        circuitOpen: s.circuitOpen, townsWithout: s.townsWithout,
      };
    }
    setMeta(db, SOURCE_TOTALS_KEY, JSON.stringify(totals));
  }).immediate();
}

function parse<T>(raw: string | undefined): T | undefined {
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return undefined;
  }
}

const GOOD_BACKUP_KEY = "backup.last_good";

/** A backup that passed its check and reached the bucket: its name and when it was taken (ISO). */
export function recordGoodBackup(db: DB, name: string, at: string): void {
  setMeta(db, GOOD_BACKUP_KEY, JSON.stringify({ name, at }));
}

export function lastGoodBackup(db: DB): { name: string; at: string } | undefined {
  return parse<{ name: string; at: string }>(getMeta(db, GOOD_BACKUP_KEY));
}
