import fs from "node:fs";
import path from "node:path";
import type { Config } from "../../config/load.ts";
import { fileReplicaLastMoved, restoreReplica, s3ReplicaLastMoved, writeLitestreamConfig } from "../../integrations/backup/litestream.ts";
import { integrityCheck } from "../../store/platform/backup.ts";
import { databaseFile } from "../../store/db.ts";

/** Left in DATA_DIR by a restore from the replica; the server replays the payments since `point`, then removes it. */
export const RESTORE_MARKER = "restored-from-replica.json";

export interface RestoreMarker {
  /** The restored database holds every change up to about this time (the replica's last move, or the time asked for). */
  point: string;
  restoredAt: string;
}

export interface ReplicaRestore {
  restored: boolean;
  file: string;
  point?: Date;
  /** Where the database it replaced was moved (a restore over an existing one). */
  movedAside?: string;
}

/** When the replica last moved: the restored database holds what was written up to then. */
export async function replicaLastMoved(config: Config): Promise<Date | null> {
  const t = config.replica.target;
  if (!t) return null;
  return t.kind === "file" ? fileReplicaLastMoved(t.path) : s3ReplicaLastMoved(t);
}

/**
 * Restores DATA_DIR's database from the replica (REPLICA_URL): the latest state, or the state at
 * `at`. Nothing happens when the replica holds no database yet (restored: false). The copy is
 * checked with `integrity_check` before it replaces anything; a database already there is moved
 * aside with its WAL as `citydaily.db.before-restore-<stamp>` (the caller makes sure no process has it open).
 */
export async function restoreFromReplica(config: Config, opts: { at?: Date; now?: Date } = {}): Promise<ReplicaRestore> {
  const file = databaseFile(config.dataDir);
  const configFile = writeLitestreamConfig(config.dataDir, file, config.replica);
  const tmp = `${file}.restoring`;
  // Litestream writes `<output>.tmp` and renames it; reading the copy leaves an empty WAL and index beside it.
  const leftovers = () => { for (const suffix of ["-wal", "-shm", ".tmp", ".tmp-wal", ".tmp-shm"]) fs.rmSync(tmp + suffix, { force: true }); };
  fs.rmSync(tmp, { force: true });
  leftovers();
  const point = opts.at ?? (await replicaLastMoved(config));
  const { restored } = restoreReplica(configFile, file, { output: tmp, timestamp: opts.at, ifReplicaExists: true });
  if (!restored) return { restored: false, file };
  const check = integrityCheck(tmp);
  leftovers();
  if (check.length !== 1 || check[0] !== "ok") throw new Error(`the restored database fails integrity_check: ${check.slice(0, 3).join("; ")}`);
  const now = opts.now ?? new Date();
  let movedAside: string | undefined;
  if (fs.existsSync(file)) {
    movedAside = `${file}.before-restore-${now.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z")}`;
    for (const suffix of ["", "-wal", "-shm"]) if (fs.existsSync(file + suffix)) fs.renameSync(file + suffix, movedAside + suffix);
  }
  for (const suffix of ["-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
  // Litestream's local state belongs to the database replaced: it starts a new generation from the restored one.
  fs.rmSync(path.join(config.dataDir, `.${path.basename(file)}-litestream`), { recursive: true, force: true });
  fs.renameSync(tmp, file);
  const marker: RestoreMarker = { point: (point ?? now).toISOString(), restoredAt: now.toISOString() };
  fs.writeFileSync(path.join(config.dataDir, RESTORE_MARKER), `${JSON.stringify(marker)}\n`);
  return { restored: true, file, point: point ?? undefined, movedAside };
}
