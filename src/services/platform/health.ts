import fs from "node:fs";
import type { HealthCheck, HealthResponse, HealthStatus } from "../../contract/health.ts";
import { readProbe, senderProgress, writeProbe } from "../../store/platform/monitoring.ts";
import type { AppContext } from "./context.ts";
import { replicationState } from "./replication.ts";

// Readiness (`/readyz`), as the IETF health-check draft shapes it: each concern a check of its own,
// the answer the worst of them. Asked afresh every time (nothing cached): a load balancer that polls
// it must see the database refuse a write the moment it does.

/** How long the probe's write waits for another process's write lock before the database counts as unwritable. */
const PROBE_BUSY_MS = 1000;

const worst = (statuses: HealthStatus[]): HealthStatus => (statuses.includes("fail") ? "fail" : statuses.includes("warn") ? "warn" : "pass");

/** A real read and a real, committed write: a database that answers reads but refuses writes is not ready. */
function databaseCheck(ctx: AppContext, now: Date): HealthCheck {
  const time = now.toISOString();
  try {
    readProbe(ctx.db);
  } catch (err) {
    return { componentType: "datastore", status: "fail", time, output: `the database cannot be read: ${(err as Error).message}` };
  }
  try {
    writeProbe(ctx.db, time, PROBE_BUSY_MS);
    return { componentType: "datastore", status: "pass", time };
  } catch (err) {
    return { componentType: "datastore", status: "fail", time, output: `the database cannot be written: ${(err as { code?: string }).code ?? ""} ${(err as Error).message}`.trim() };
  }
}

function replicationCheck(ctx: AppContext, now: Date): HealthCheck {
  const time = now.toISOString();
  const r = replicationState(ctx, now);
  if (!r.configured) return { componentType: "component", status: "pass", time, output: "not configured (REPLICA_URL unset)" };
  const seconds = r.secondsSinceReplicated === null ? undefined : Math.round(r.secondsSinceReplicated);
  const base = { componentType: "component", observedUnit: "s", ...(seconds === undefined ? {} : { observedValue: seconds }), time } as const;
  if (r.failing) return { ...base, status: "fail", output: `changes have waited more than ${ctx.config.replica.failAfterSeconds} s for the replica (last moved ${r.lastReplicatedAt?.toISOString() ?? "never"})` };
  if (!r.lastReplicatedAt) return { ...base, status: "warn", output: "nothing replicated yet" };
  return { ...base, status: "pass" };
}

function diskCheck(ctx: AppContext, now: Date): HealthCheck {
  const time = now.toISOString();
  const min = ctx.config.monitoring.minFreeBytes;
  try {
    const s = fs.statfsSync(ctx.config.dataDir);
    const free = s.bavail * s.bsize;
    const status: HealthStatus = free < min ? "fail" : free < 4 * min ? "warn" : "pass";
    const output = status === "pass" ? undefined : `${Math.round(free / 1048576)} MiB free under DATA_DIR (${status === "fail" ? "under" : "near"} READYZ_MIN_FREE_BYTES, ${Math.round(min / 1048576)} MiB)`;
    return { componentType: "system", observedValue: free, observedUnit: "bytes", status, time, ...(output ? { output } : {}) };
  } catch (err) {
    return { componentType: "system", status: "fail", time, output: `DATA_DIR cannot be examined: ${(err as Error).message}` };
  }
}

/** Mail due long ago: a warning while the sender still sends (a backlog), a failure when nothing went out since (stalled). */
function mailCheck(ctx: AppContext, now: Date, real: Date): HealthCheck {
  const time = real.toISOString();
  if (!ctx.config.mail.senderEnabled) return { componentType: "component", status: "pass", time, output: "the sender does not run in this process (MAIL_SENDER=off)" };
  const stallMs = ctx.config.monitoring.mailStallSeconds * 1000;
  const { oldestDueAt, lastSentAt } = senderProgress(ctx.db, now.getTime());
  const waited = oldestDueAt === null ? 0 : now.getTime() - oldestDueAt;
  const base = { componentType: "component", observedValue: Math.round(waited / 1000), observedUnit: "s", time } as const;
  if (waited <= stallMs) {
    const paused = ctx.mail.delivery.pausedUntilReal > Date.now();
    return paused ? { ...base, status: "warn", output: `the mail relay failed; sending pauses until ${new Date(ctx.mail.delivery.pausedUntilReal).toISOString()}` } : { ...base, status: "pass" };
  }
  const sentLately = lastSentAt !== null && now.getTime() - Date.parse(lastSentAt) <= stallMs;
  return sentLately
    ? { ...base, status: "warn", output: `mail has waited ${Math.round(waited / 60000)} min to be sent; the sender is behind` }
    : { ...base, status: "fail", output: `mail has waited ${Math.round(waited / 60000)} min and nothing was sent since ${lastSentAt ?? "the start"}: the sender is stalled` };
}

/** The town directory's import at the server's start (only where it runs: TOWN_DIRECTORY_IMPORT=start). */
function directoryImportCheck(ctx: AppContext, real: Date): HealthCheck | undefined {
  const d = ctx.directoryImport;
  const time = real.toISOString();
  const base = { componentType: "component", time } as const;
  switch (d.status) {
    case "off": return undefined;
    case "checking": return { ...base, status: "pass", output: "checking whether the town directory's files changed" };
    case "importing": return { ...base, status: "pass", observedValue: Math.round((real.getTime() - Date.parse(d.since)) / 1000), observedUnit: "s", output: `importing the town directory in the background since ${d.since}; its candidates are incomplete until it ends` };
    case "imported": return { ...base, status: "pass", observedValue: d.seconds, observedUnit: "s", output: `imported ${(d.candidates ?? 0).toLocaleString("en-US")} candidates in ${d.seconds} s at ${d.since}` };
    case "unchanged": return { ...base, status: "pass", output: "the town directory's files are unchanged since their last import" };
    case "stopped": return { ...base, status: "warn", output: "the import stopped before it ended; the next start imports the town directory again" };
    case "failed": return { ...base, status: "warn", output: `importing the town directory failed (${d.error ?? "unknown error"}); \`npm run admin -- directory import\` retries it` };
  }
}

/** Every check, now; the status is the worst of them. */
export function readiness(ctx: AppContext): HealthResponse {
  // Files and the replica are on real time; the outbox's due times on the app's clock (NOW pins it).
  const real = new Date();
  const checks: Record<string, HealthCheck[]> = {
    "sqlite:writable": [databaseCheck(ctx, real)],
    "replication:lag": [replicationCheck(ctx, real)],
    "disk:free": [diskCheck(ctx, real)],
    "mail:sender": [mailCheck(ctx, ctx.config.now(), real)],
  };
  const directory = directoryImportCheck(ctx, real);
  if (directory) checks["directory:import"] = [directory];
  return { status: worst(Object.values(checks).flat().map((c) => c.status)), checks };
}

/** Liveness: the process answers. Nothing else is asked (a slow disk must not get it restarted). */
export function liveness(): HealthResponse {
  return { status: "pass", checks: {} };
}
