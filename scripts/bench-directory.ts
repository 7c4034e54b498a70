/**
 * Town directory import benchmark: `npm run bench:directory` (`-- --sources DIR` for another folder).
 *
 * Imports the full datasets (content/data/sources, or TOWN_SOURCES_DIR) into a fresh database that
 * holds the places, then again (nothing changes), and prints for each the wall and CPU time, the rows,
 * the database's growth and the process's peak memory: what a fresh install's first start pays.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PLACES_CSV } from "../src/config/paths.ts";
import { townDirectoryConfig } from "../src/config/sources.ts";
import { directoryReport, importDirectory } from "../src/services/directory/import.ts";
import { databaseFile, openDatabase } from "../src/store/db.ts";
import { importPlaces } from "../src/store/places/import-places.ts";

const args = process.argv.slice(2);
const dir = args.includes("--sources") ? path.resolve(args[args.indexOf("--sources") + 1]) : townDirectoryConfig(process.env).dir;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-bench-directory-"));
const file = databaseFile(dataDir);
const size = () => ["", "-wal"].reduce((n, s) => n + (fs.existsSync(file + s) ? fs.statSync(file + s).size : 0), 0);
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

try {
  const db = openDatabase(file);
  importPlaces(db, PLACES_CSV);
  db.pragma("wal_checkpoint(TRUNCATE)");
  console.log(`places imported; database ${mb(size())}; load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  for (const label of ["first import", "again (nothing changed)"]) {
    const before = size();
    const cpu = process.cpuUsage();
    const started = performance.now();
    const result = importDirectory(db, dir, { now: new Date() });
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    db.pragma("wal_checkpoint(TRUNCATE)");
    if (label === "first import") console.log(directoryReport(result));
    console.log(`${label}: ${(wall / 1000).toFixed(1)} s wall, ${((used.user + used.system) / 1e6).toFixed(1)} s CPU; ` +
      `${result.sync!.added} added, ${result.sync!.unchanged} unchanged; database ${mb(before)} -> ${mb(size())}; peak RSS ${mb(process.resourceUsage().maxRSS * 1024)}`);
  }
  db.close();
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}
