import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Config } from "../../config/load.ts";
import { PROJECT_ROOT } from "../../config/paths.ts";
import { s3BackupStore, type BackupStore } from "../../integrations/backup/s3.ts";
import type { Logger } from "../../lib/log.ts";
import { backupDatabase, integrityCheck, tableCounts, type BackupOptions } from "../../store/platform/backup.ts";
import type { DB } from "../../store/db.ts";
import { recordGoodBackup } from "../../store/platform/monitoring.ts";

/** `citydaily-20261124T071500Z.db`: names sort by time. */
export function backupName(at: Date): string {
  return `citydaily-${at.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z")}.db`;
}

/** The instant a backup's name records (ISO). */
function takenAt(name: string): string {
  const m = /^citydaily-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z\.db$/.exec(name);
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z` : new Date().toISOString();
}

export function backupStore(config: Config): BackupStore | undefined {
  return config.backup.target ? s3BackupStore(config.backup.target) : undefined;
}

export interface UploadedBackup {
  name: string;
  bytes: number;
  pruned: string[];
}

/**
 * One scheduled backup: a `VACUUM INTO` copy under DATA_DIR/backups, checked with
 * `integrity_check`, uploaded to BACKUP_TARGET, then removed locally; the bucket keeps the newest
 * `BACKUP_KEEP`. A copy that fails its check is not uploaded (and is kept locally to look at).
 */
export async function backupToStore(config: Config, db: DB, store: BackupStore, opts: BackupOptions = {}): Promise<UploadedBackup> {
  // Named once this backup holds the folder's lock (another may be running: it waits).
  const { file } = await backupDatabase(db, () => path.join(config.dataDir, "backups", backupName(new Date())), opts);
  const name = path.basename(file);
  const check = integrityCheck(file);
  if (check.length !== 1 || check[0] !== "ok") throw new Error(`backup ${file} fails integrity_check: ${check.slice(0, 3).join("; ")}`);
  const { bytes } = await store.upload(file, name);
  fs.rmSync(file, { force: true });
  // /metrics tells when the last good copy was taken (an alert fires after two intervals without one).
  recordGoodBackup(db, name, takenAt(name));
  const names = await store.list();
  const pruned = names.slice(0, Math.max(0, names.length - config.backup.keep));
  for (const old of pruned) await store.remove(old);
  return { name, bytes, pruned };
}

export interface DrillResult {
  name: string;
  ageSeconds: number;
  bytes: number;
  counts: Record<string, number>;
}

/**
 * The restore drill: the newest backup in the bucket is downloaded into a scratch directory (its
 * SHA-256 checked), must pass `integrity_check`, and is opened to count what a restore would bring
 * back. Throws when there is no backup, it is unsound, or it is older than `maxAgeSeconds`.
 */
export async function restoreDrill(store: BackupStore, maxAgeSeconds: number, now = new Date()): Promise<DrillResult> {
  const names = await store.list();
  const name = names.at(-1);
  if (!name) throw new Error("no backup in the bucket");
  const stamp = /^citydaily-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z\.db$/.exec(name)!;
  const at = Date.UTC(+stamp[1], +stamp[2] - 1, +stamp[3], +stamp[4], +stamp[5], +stamp[6]);
  const ageSeconds = Math.round((now.getTime() - at) / 1000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-drill-"));
  try {
    const file = path.join(dir, name);
    await store.download(name, file);
    const check = integrityCheck(file);
    if (check.length !== 1 || check[0] !== "ok") throw new Error(`backup ${name} fails integrity_check: ${check.slice(0, 3).join("; ")}`);
    const counts = tableCounts(file, ["places", "subscribers", "editions", "outbox", "listing_orders", "payment_events"]);
    if (ageSeconds > maxAgeSeconds) throw new Error(`the newest backup, ${name}, is ${ageSeconds} s old (more than ${maxAgeSeconds} s)`);
    return { name, ageSeconds, bytes: fs.statSync(file).size, counts };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The settings the backup child needs, from this process's config (which need not come from its environment). */
function backupEnv(config: Config): Record<string, string> {
  const t = config.backup.target!;
  return {
    DATA_DIR: config.dataDir, BACKUP_TARGET: `s3://${t.bucket}/${t.prefix}`, BACKUP_KEEP: String(config.backup.keep),
    BACKUP_INTERVAL_SECONDS: String(config.backup.intervalSeconds), AWS_REGION: t.region, S3_FORCE_PATH_STYLE: String(t.forcePathStyle),
    ...(t.endpoint ? { AWS_ENDPOINT_URL: t.endpoint } : {}),
    ...(t.credentials ? { AWS_ACCESS_KEY_ID: t.credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: t.credentials.secretAccessKey } : {}),
    BASE_URL: config.baseUrl, LOG_LEVEL: "silent",
  };
}

export interface BackupSchedule {
  /** Stops the timer; a backup in progress is ended (its partial file is removed by the next one). */
  stop(): Promise<void>;
}

/**
 * The server's continuous backup: every `BACKUP_INTERVAL_SECONDS`, `scripts/backup.ts --upload`
 * runs as a child process (the copy of a large database then never holds the server's event loop).
 * A failure is logged as an alert and retried at the next interval.
 */
export function startBackupSchedule(config: Config, log: Logger): BackupSchedule {
  let child: ChildProcess | undefined;
  let done: Promise<void> | undefined;
  const tick = () => {
    if (child) return;
    const started = Date.now();
    let out = "";
    child = spawn(process.execPath, [path.join(PROJECT_ROOT, "scripts/backup.ts"), "--upload"], {
      cwd: PROJECT_ROOT, env: { ...process.env, ...backupEnv(config) }, stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout!.on("data", (c: Buffer) => (out += c));
    child.stderr!.on("data", (c: Buffer) => (out += c));
    done = new Promise<void>((resolve) => child!.once("exit", (code, signal) => {
      child = undefined;
      const summary = out.trim().split("\n").at(-1);
      if (code === 0) log.info({ ms: Date.now() - started, summary }, "scheduled backup uploaded");
      else if (signal !== "SIGTERM") log.error({ alert: "backup_failed", code, signal, output: out.slice(-2000) }, "scheduled backup failed");
      resolve();
    }));
  };
  const timer = setInterval(tick, config.backup.intervalSeconds * 1000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      child?.kill("SIGTERM");
      await done;
    },
  };
}
