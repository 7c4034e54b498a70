/**
 * `npm run backup:drill`: the restore drill for continuous backups. Downloads the newest backup from
 * BACKUP_TARGET into a scratch directory (its SHA-256 checked against the upload's), runs
 * `integrity_check`, counts what a restore would bring back, and exits 1 if there is no backup, it
 * is unsound, or it is older than twice BACKUP_INTERVAL_SECONDS (the schedule has stopped).
 * Nothing of DATA_DIR is touched. Run it from a scheduler and alert on a non-zero exit.
 */
import { loadConfig } from "../src/config/load.ts";
import { backupStore, restoreDrill } from "../src/services/platform/backups.ts";

const config = loadConfig();
const store = backupStore(config);
if (!store) {
  console.error("backup:drill needs BACKUP_TARGET=s3://bucket/prefix");
  process.exit(2);
}
try {
  const r = await restoreDrill(store, 2 * config.backup.intervalSeconds);
  console.log(`drill ok: ${r.name}, ${r.ageSeconds} s old, ${(r.bytes / 1e6).toFixed(1)} MB, integrity_check ok; ${Object.entries(r.counts).map(([t, n]) => `${n} ${t}`).join(", ")}`);
} catch (err) {
  console.error(`drill FAILED: ${(err as Error).message}`);
  process.exit(1);
}
