/**
 * `npm run backup [-- FILE]`: a consistent online copy of the database (`VACUUM INTO`, one read
 * transaction) while the server keeps taking writes, then `PRAGMA integrity_check` on the copy.
 * Default FILE: DATA_DIR/backups/citydaily-<UTC timestamp>.db. Exit 1 if the copy is not sound.
 */
import path from "node:path";
import { loadConfig } from "../src/config.ts";
import { backupDatabase, integrityCheck, tableCounts } from "../src/store/backup.ts";
import { databaseFile, openDatabase } from "../src/store/db.ts";

const config = loadConfig();
const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
const destination = path.resolve(process.argv[2] ?? path.join(config.dataDir, "backups", `citydaily-${stamp}.db`));
const started = performance.now();
const db = openDatabase(databaseFile(config.dataDir));
const { bytes } = await backupDatabase(db, destination);
db.close();
const check = integrityCheck(destination);
const counts = tableCounts(destination, ["places", "subscribers", "editions", "outbox"]);
const seconds = ((performance.now() - started) / 1000).toFixed(2);
console.log(`backup ${destination}: ${(bytes / 1e6).toFixed(1)} MB in ${seconds} s; integrity_check ${check.join("; ")}; ${Object.entries(counts).map(([t, n]) => `${n} ${t}`).join(", ")}`);
process.exit(check.length === 1 && check[0] === "ok" ? 0 : 1);
