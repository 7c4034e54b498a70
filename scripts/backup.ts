/**
 * `npm run backup [-- FILE]`: a consistent online copy of the database (`VACUUM INTO`, one read
 * transaction) while the server keeps taking writes, then `PRAGMA integrity_check` on the copy.
 * Default FILE: DATA_DIR/backups/citydaily-<UTC timestamp>.db. Exit 1 if the copy is not sound.
 *
 * `npm run backup -- --upload`: the same, then uploaded to BACKUP_TARGET (s3://bucket/prefix) and
 * removed locally; the bucket keeps the newest BACKUP_KEEP. What the server runs on its schedule.
 *
 * One backup at a time per folder: a second one (by hand while the scheduled one runs) says so and
 * waits for the first to finish.
 */
import path from "node:path";
import { loadConfig } from "../src/config/load.ts";
import { backupName, backupStore, backupToStore } from "../src/services/platform/backups.ts";
import { backupDatabase, integrityCheck, tableCounts } from "../src/store/platform/backup.ts";
import { databaseFile, openDatabase } from "../src/store/db.ts";

const config = loadConfig();
const started = performance.now();
const seconds = () => ((performance.now() - started) / 1000).toFixed(2);
const db = openDatabase(databaseFile(config.dataDir));
const onWait = (pid: number) => console.error(`backup: another backup is running in this folder (pid ${pid}); waiting for it to finish`);

if (process.argv.includes("--upload")) {
  const store = backupStore(config);
  if (!store) {
    console.error("--upload needs BACKUP_TARGET=s3://bucket/prefix");
    process.exit(2);
  }
  const r = await backupToStore(config, db, store, { onWait });
  db.close();
  console.log(`backup ${r.name}: ${(r.bytes / 1e6).toFixed(1)} MB checked and uploaded in ${seconds()} s${r.pruned.length ? `; ${r.pruned.length} older removed` : ""}`);
  process.exit(0);
}

const given = process.argv[2];
// The default name is taken once this backup holds the folder's lock (a per-second name nobody else has).
const { bytes, file: destination } = await backupDatabase(db, given ? path.resolve(given) : () => path.join(config.dataDir, "backups", backupName(new Date())), { onWait });
db.close();
const check = integrityCheck(destination);
const counts = tableCounts(destination, ["places", "subscribers", "editions", "outbox"]);
console.log(`backup ${destination}: ${(bytes / 1e6).toFixed(1)} MB in ${seconds()} s; integrity_check ${check.join("; ")}; ${Object.entries(counts).map(([t, n]) => `${n} ${t}`).join(", ")}`);
process.exit(check.length === 1 && check[0] === "ok" ? 0 : 1);
