/**
 * `npm run restore -- FILE`: puts a backup back as DATA_DIR's database. Stop the server (and any
 * morning run or sender) first: with the database open elsewhere it refuses (exit 1), touching nothing. The backup is checked with `PRAGMA integrity_check` before anything
 * is touched; the database it replaces is kept beside it as `citydaily.db.before-restore-<stamp>`.
 * `npm run restore -- --latest` (or `--from-target NAME`) first downloads the newest (or the named)
 * backup from BACKUP_TARGET into DATA_DIR/backups.
 * `npm run restore -- --replica [--at ISO-TIME]` restores from the Litestream replica (REPLICA_URL)
 * instead: its latest state, or the database as it was at that time (within REPLICA_RETENTION).
 * A restored database makes the next server start ask Stripe for the payments since its point.
 */
import fs from "node:fs";
import path from "node:path";
import { loadConfig } from "../src/config/load.ts";
import { keepPrivate, makePrivateDir } from "../src/lib/private-files.ts";
import { backupStore } from "../src/services/platform/backups.ts";
import { restoreFromReplica } from "../src/services/platform/replica-restore.ts";
import { integrityCheck, tableCounts, takeDatabaseAlone } from "../src/store/platform/backup.ts";
import { databaseFile } from "../src/store/db.ts";

const config = loadConfig();
let source = process.argv[2];
if (!source) {
  console.error("usage: npm run restore -- FILE | --latest | --from-target NAME | --replica [--at ISO-TIME]   (stop the server first)");
  process.exit(2);
}
if (source === "--replica") await restoreReplicaAndExit();
if (source === "--latest" || source === "--from-target") {
  const store = backupStore(config);
  if (!store) {
    console.error(`${source} needs BACKUP_TARGET=s3://bucket/prefix`);
    process.exit(2);
  }
  const name = source === "--latest" ? (await store.list()).at(-1) : process.argv[3];
  if (!name) {
    console.error(source === "--latest" ? "no backup in BACKUP_TARGET" : "usage: npm run restore -- --from-target NAME");
    process.exit(1);
  }
  source = path.join(config.dataDir, "backups", name);
  makePrivateDir(path.dirname(source));
  await store.download(name, source);
  console.log(`downloaded ${name} -> ${source}`);
}
const check = integrityCheck(source);
if (check.length !== 1 || check[0] !== "ok") {
  console.error(`not restored: ${source} fails integrity_check: ${check.slice(0, 5).join("; ")}`);
  process.exit(1);
}
const target = databaseFile(config.dataDir);
makePrivateDir(config.dataDir);
// A server (or any citydaily process) with the database open would go on writing to the file moved
// aside, and those writes would be missing from the restored one: refuse. (Closed at once, which
// also folds its WAL into the file moved aside.)
refuseWhileInUse(target);
const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
// The replaced database moves aside with its WAL (which must not be replayed into the restored one).
for (const suffix of ["", "-wal", "-shm"]) {
  if (fs.existsSync(target + suffix)) fs.renameSync(target + suffix, `${target}.before-restore-${stamp}${suffix}`);
}
const tmp = `${target}.restoring`;
fs.copyFileSync(source, tmp);
keepPrivate(tmp); // a copy takes its source's mode: a backup made before backups were owner-only
fs.renameSync(tmp, target);
const counts = tableCounts(target, ["places", "subscribers", "editions", "outbox"]);
console.log(`restored ${source} -> ${target}: ${Object.entries(counts).map(([t, n]) => `${n} ${t}`).join(", ")}`);

/** Refuses (exit 1) while another process has the database open; Litestream replicating it counts. */
function refuseWhileInUse(target: string): void {
  if (!fs.existsSync(target)) return;
  const alone = takeDatabaseAlone(target);
  if (!alone) {
    console.error("not restored: the database is in use by another process (the server, a morning run, mail:send or a backup). Stop them, then run the restore again.");
    process.exit(1);
  }
  alone.close();
}

async function restoreReplicaAndExit(): Promise<never> {
  if (!config.replica.target) {
    console.error("--replica needs REPLICA_URL=file:///path or s3://bucket/prefix");
    process.exit(2);
  }
  const atIndex = process.argv.indexOf("--at");
  const at = atIndex > 0 ? new Date(process.argv[atIndex + 1] ?? "") : undefined;
  if (at && Number.isNaN(at.getTime())) {
    console.error(`--at needs an ISO time such as 2026-11-27T06:15:00Z, got "${process.argv[atIndex + 1] ?? ""}"`);
    process.exit(2);
  }
  refuseWhileInUse(databaseFile(config.dataDir));
  try {
    const result = await restoreFromReplica(config, { at });
    if (!result.restored) {
      console.error(`not restored: ${config.replica.url} holds no database${at ? ` at ${at.toISOString()}` : ""}`);
      process.exit(1);
    }
    const counts = tableCounts(result.file, ["places", "subscribers", "editions", "outbox"]);
    if (result.movedAside) console.log(`the database it replaces is kept as ${result.movedAside}`);
    console.log(`restored ${config.replica.url}${at ? ` as of ${at.toISOString()}` : ""} -> ${result.file}: ${Object.entries(counts).map(([t, n]) => `${n} ${t}`).join(", ")}`);
    process.exit(0);
  } catch (err) {
    console.error(`not restored: ${(err as Error).message}`);
    process.exit(1);
  }
}
