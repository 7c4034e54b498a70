import fs from "node:fs";
import { collectDefaultMetrics, type Registry } from "prom-client";
import { localDate, localHour } from "../../lib/time.ts";
import { databaseFile } from "../../store/db.ts";
import { editionsOwed, feedbackTotals, lastGoodBackup, lastMorningRun, outboxFigures, placeTimezones, sourceTotals } from "../../store/platform/monitoring.ts";
import type { AppContext } from "./context.ts";
import { readiness } from "./health.ts";
import { replicationState } from "./replication.ts";

// The figures /metrics serves besides request durations: each read from the database (or the disk)
// when Prometheus asks, by a collect() callback, never sampled on a timer. Names follow Prometheus's
// conventions: the `citydaily_` prefix, base units (`_seconds`, `_bytes`), `_total` on counters.
// The list, with what each means, is in docs/operations.md.

/** A town counts as overdue this long after its publication hour without its edition (runs are every 15 minutes). */
const OVERDUE_AFTER_HOURS = 1;
/** One read per scrape, shared by the gauges that show parts of it. */
const SCRAPE_MS = 1000;

function perScrape<T>(read: () => T): () => T {
  let at = -Infinity;
  let value: T;
  return () => {
    const now = performance.now();
    if (now - at > SCRAPE_MS) {
      value = read();
      at = now;
    }
    return value;
  };
}

type Read = (set: (value: number, labels?: Record<string, string>) => void) => void;

/**
 * A metric read at scrape time, registered on the app's registry: prom-client's Gauge and Counter
 * always show an unlabelled series (0 before anything is set), where a figure nobody knows yet (no
 * backup, no run) must be absent, not 0. Values come from `read` on each scrape.
 */
function readMetric(registry: Registry, type: "gauge" | "counter", name: string, help: string, read: Read): void {
  const get = async () => {
    const values: Array<{ value: number; labels: Record<string, string> }> = [];
    read((value, labels = {}) => values.push({ value, labels }));
    return { name, help, type, values, aggregator: "sum" as const };
  };
  registry.registerMetric({ name, help, type, aggregator: "sum", get, reset: () => undefined } as unknown as Parameters<Registry["registerMetric"]>[0]);
}

const gauge = (registry: Registry, name: string, help: string, read: Read) => readMetric(registry, "gauge", name, help, read);
/** A counter whose total is kept in the database (it survives restarts and counts other processes' work). */
const counter = (registry: Registry, name: string, help: string, read: Read) => readMetric(registry, "counter", name, help, read);

const seconds = (iso: string) => Date.parse(iso) / 1000;

function mailMetrics(ctx: AppContext, r: Registry): void {
  const outbox = perScrape(() => outboxFigures(ctx.db));
  const feedback = perScrape(() => feedbackTotals(ctx.db));
  gauge(r, "citydaily_outbox_pending_messages", "Messages in the outbox not yet sent (pending or being sent).", (set) => set(outbox().pending));
  gauge(r, "citydaily_outbox_oldest_pending_age_seconds", "Age of the oldest unsent message in the outbox (0 when none).", (set) => {
    const oldest = outbox().oldestPendingAt;
    set(oldest ? Math.max(0, ctx.config.now().getTime() / 1000 - seconds(oldest)) : 0);
  });
  counter(r, "citydaily_mail_sent_total", "Messages the relay accepted.", (set) => set(outbox().sent));
  counter(r, "citydaily_mail_failed_total", "Messages given up on (a permanent refusal, or too many attempts).", (set) => set(outbox().failed));
  counter(r, "citydaily_mail_bounced_total", "Bounces received (SMTP and the providers' webhooks).", (set) => set(feedback().bounced));
  counter(r, "citydaily_mail_complained_total", "Spam complaints received.", (set) => set(feedback().complained));
}

function morningMetrics(ctx: AppContext, r: Registry): void {
  const last = perScrape(() => lastMorningRun(ctx.db));
  const run = (pick: (l: NonNullable<ReturnType<typeof last>>) => number): Read => (set) => {
    const l = last();
    if (l) set(pick(l));
  };
  gauge(r, "citydaily_morning_last_run_timestamp_seconds", "When the last morning run finished (Unix time).", run((l) => seconds(l.finishedAt)));
  gauge(r, "citydaily_morning_last_run_duration_seconds", "How long the last morning run took.", run((l) => l.ms / 1000));
  gauge(r, "citydaily_morning_towns_due", "Towns due in the last morning run.", run((l) => l.due));
  gauge(r, "citydaily_morning_towns_composed", "Towns whose edition the last morning run composed.", run((l) => l.composed));
  gauge(r, "citydaily_morning_towns_without_forecast", "Editions of the last morning run stored without a forecast.", run((l) => l.withoutWeather));
  gauge(r, "citydaily_morning_towns_failed", "Towns whose edition failed in the last morning run.", run((l) => l.failed));
  const owed = perScrape(() => {
    const now = ctx.config.now();
    const zones = placeTimezones(ctx.db);
    const rows = editionsOwed(ctx.db, Object.fromEntries(zones.map((tz) => [tz, localDate(now, tz)])));
    const late = (tz: string) => localHour(now, tz) >= ctx.config.publishHour + OVERDUE_AFTER_HOURS;
    return rows.map((row) => ({ ...row, overdue: late(row.timezone) ? row.without : 0 }));
  });
  gauge(r, "citydaily_morning_towns_subscribed", "Towns with an active subscriber, by time zone.", (set) => {
    for (const o of owed()) set(o.towns, { timezone: o.timezone });
  });
  gauge(r, "citydaily_morning_towns_overdue", "Subscribed towns an hour or more past their publication hour without today's edition, by time zone: the morning did not run there.", (set) => {
    for (const o of owed()) set(o.overdue, { timezone: o.timezone });
  });
}

function sourceMetrics(ctx: AppContext, r: Registry): void {
  const totals = perScrape(() => Object.entries(sourceTotals(ctx.db)));
  const each = (pick: (t: ReturnType<typeof sourceTotals>[string]) => number): Read => (set) => {
    for (const [source, t] of totals()) set(pick(t), { source });
  };
  counter(r, "citydaily_source_requests_total", "Requests the morning made to each outside source.", each((t) => t.requests));
  counter(r, "citydaily_source_rate_limited_total", "429 answers from each outside source.", each((t) => t.rateLimited));
  counter(r, "citydaily_source_failures_total", "Failed requests to each outside source (timeout, network, 5xx, unreadable).", each((t) => t.failures));
  gauge(r, "citydaily_source_circuit_open", "1 when the last morning run went without the source (its breaker opened, a 429 window or a pause kept it away).", each((t) => (t.circuitOpen ? 1 : 0)));
  gauge(r, "citydaily_source_towns_without", "Towns that went without the source in the last morning run.", each((t) => t.townsWithout));
}

function platformMetrics(ctx: AppContext, r: Registry): void {
  const replication = perScrape(() => replicationState(ctx, new Date()));
  gauge(r, "citydaily_replication_configured", "1 when REPLICA_URL is set (Litestream replicates the database).", (set) => set(replication().configured ? 1 : 0));
  gauge(r, "citydaily_replication_failing", "1 when a change of the database has waited more than REPLICA_FAIL_AFTER_SECONDS for the replica.", (set) => set(replication().failing ? 1 : 0));
  gauge(r, "citydaily_replication_seconds_since_replicated", "Seconds since the replica last moved (absent before the first replication).", (set) => {
    const s = replication().secondsSinceReplicated;
    if (s !== null) set(s);
  });
  gauge(r, "citydaily_replication_last_replicated_timestamp_seconds", "When the replica last moved (Unix time).", (set) => {
    const at = replication().lastReplicatedAt;
    if (at) set(at.getTime() / 1000);
  });
  gauge(r, "citydaily_backup_last_success_timestamp_seconds", "When the last backup that passed its check and was uploaded was taken (Unix time).", (set) => {
    const b = lastGoodBackup(ctx.db);
    if (b) set(seconds(b.at));
  });
  gauge(r, "citydaily_backup_interval_seconds", "BACKUP_INTERVAL_SECONDS, while scheduled backups are configured (BACKUP_TARGET).", (set) => {
    if (ctx.config.backup.target) set(ctx.config.backup.intervalSeconds);
  });
  const file = databaseFile(ctx.config.dataDir);
  const size = (f: string) => fs.statSync(f, { throwIfNoEntry: false })?.size ?? 0;
  gauge(r, "citydaily_sqlite_wal_bytes", "Size of the database's write-ahead log.", (set) => set(size(`${file}-wal`)));
  gauge(r, "citydaily_sqlite_database_bytes", "Size of the database file (without its WAL).", (set) => set(size(file)));
  gauge(r, "citydaily_data_disk_free_bytes", "Bytes free to this process on the disk under DATA_DIR.", (set) => {
    const s = fs.statfsSync(ctx.config.dataDir);
    set(s.bavail * s.bsize);
  });
  const ready = perScrape(() => readiness(ctx));
  gauge(r, "citydaily_ready", "1 when /readyz passes or warns, 0 when it fails (503).", (set) => set(ready().status === "fail" ? 0 : 1));
  gauge(r, "citydaily_health_check_failing", "1 for each /readyz check that fails now.", (set) => {
    for (const [check, results] of Object.entries(ready().checks)) set(results.some((c) => c.status === "fail") ? 1 : 0, { check });
  });
}

/** Registers the scrape-time figures and Node's process figures on the app's registry (once). */
export function registerCollectors(ctx: AppContext): Registry {
  const { registry } = ctx.metrics;
  if (ctx.metrics.collecting) return registry;
  ctx.metrics.collecting = true;
  collectDefaultMetrics({ register: registry });
  // Gauges whose names end in `_total`, which `promtool check metrics` refuses; the same figures stay
  // under nodejs_active_handles, nodejs_active_requests and nodejs_active_resources.
  for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"]) registry.removeSingleMetric(name);
  mailMetrics(ctx, registry);
  morningMetrics(ctx, registry);
  sourceMetrics(ctx, registry);
  platformMetrics(ctx, registry);
  return registry;
}
