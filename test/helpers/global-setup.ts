import fs from "node:fs";
import path from "node:path";
import { PLACES_CSV } from "../../src/config/paths.ts";
import { openDatabase } from "../../src/store/db.ts";
import { importPlaces } from "../../src/store/places/import.ts";

export const TEMPLATE_DIR = path.resolve(import.meta.dirname, "../.cache/template");

/**
 * Builds one migrated database with the places imported, so each test server starts from a copy
 * instead of importing 32,367 rows again (the import itself is tested from scratch). It is built
 * under a temporary name and renamed into place, so a concurrent run never copies a half-built file.
 */
export default function setup(): void {
  fs.mkdirSync(TEMPLATE_DIR, { recursive: true });
  const tmp = path.join(TEMPLATE_DIR, `building-${process.pid}.db`);
  const db = openDatabase(tmp);
  importPlaces(db, PLACES_CSV);
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.pragma("journal_mode = DELETE");
  db.close();
  fs.renameSync(tmp, path.join(TEMPLATE_DIR, "citydaily.db"));
}
