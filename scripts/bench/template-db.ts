import fs from "node:fs";
import path from "node:path";
import { PLACES_CSV, PROJECT_ROOT } from "../../src/config/paths.ts";
import { openDatabase } from "../../src/store/db.ts";
import { importPlaces } from "../../src/store/places/import-places.ts";

/** One migrated database with the places imported, that the tests and the benches copy instead of importing 32,367 rows again. */
export const TEMPLATE_DB = path.join(PROJECT_ROOT, "test/.cache/template/citydaily.db");

/**
 * Builds the template (the test suite does at each start, so it follows the migrations). It is built
 * under a temporary name and renamed into place, so a concurrent run never copies a half-built file.
 */
export function buildTemplateDb(): string {
  fs.mkdirSync(path.dirname(TEMPLATE_DB), { recursive: true });
  const tmp = path.join(path.dirname(TEMPLATE_DB), `building-${process.pid}.db`);
  const db = openDatabase(tmp);
  importPlaces(db, PLACES_CSV);
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.pragma("journal_mode = DELETE");
  db.close();
  fs.renameSync(tmp, TEMPLATE_DB);
  return TEMPLATE_DB;
}

/** The template's path, built first if missing (a fresh clone on which the test suite has not run yet). */
export function templateDb(): string {
  return fs.existsSync(TEMPLATE_DB) ? TEMPLATE_DB : buildTemplateDb();
}
