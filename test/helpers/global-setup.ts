import fs from "node:fs";
import path from "node:path";
import { PLACES_CSV } from "../../src/config.ts";
import { openDatabase } from "../../src/store/db.ts";
import { importPlaces } from "../../src/store/places-import.ts";

export const TEMPLATE_DIR = path.resolve(import.meta.dirname, "../.cache/template");

/**
 * Builds one migrated database with the places imported, so each test server starts from a copy
 * instead of importing 32,367 rows again. The import itself is tested separately from scratch.
 */
export default function setup(): void {
  fs.rmSync(TEMPLATE_DIR, { recursive: true, force: true });
  const db = openDatabase(path.join(TEMPLATE_DIR, "citydaily.db"));
  importPlaces(db, PLACES_CSV);
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
}
