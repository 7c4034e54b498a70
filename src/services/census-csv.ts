import fs from "node:fs";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import type { DB } from "../store/db.ts";
import { ACS_DETAIL_COLUMNS } from "../store/places-import.ts";

/** CSV column holding the vintage of the detail columns; added at the end of the header when absent. */
export const ACS_DETAIL_YEAR_COLUMN = "acsDetailYear";

export interface CsvWriteResult {
  file: string;
  rows: number;
  /** Rows whose detail columns now come from the database. */
  rowsFilled: number;
}

/**
 * Rewrites the places CSV with the ACS detail columns (and `acsDetailYear`) taken from the database,
 * for every place that has imported figures. Every other cell is left exactly as it was: csv-parse
 * followed by csv-stringify reproduces the file byte for byte (quotes only where needed, `\n` line
 * ends). The file is replaced atomically.
 */
export function writePlacesCsv(db: DB, csvFile: string): CsvWriteResult {
  const records: string[][] = parse(fs.readFileSync(csvFile), { skip_empty_lines: true });
  const [header, ...rows] = records;
  const col = (name: string) => header.indexOf(name);
  const geoidCol = col("geoid");
  const detail = Object.entries(ACS_DETAIL_COLUMNS).map(([field, column]) => ({ field, column, index: col(field) }));
  const missing = [geoidCol < 0 ? "geoid" : undefined, ...detail.filter((d) => d.index < 0).map((d) => d.field)].filter(Boolean);
  if (missing.length) throw new Error(`${csvFile} has no column(s) ${missing.join(", ")}`);
  let yearCol = col(ACS_DETAIL_YEAR_COLUMN);
  if (yearCol < 0) {
    yearCol = header.length;
    header.push(ACS_DETAIL_YEAR_COLUMN);
    for (const row of rows) row.push("");
  }

  const figures = new Map<string, Record<string, number | string | null>>();
  const select = db.prepare(
    `SELECT geoid, acs_detail_year, ${detail.map((d) => d.column).join(", ")} FROM places WHERE acs_detail_year IS NOT NULL`,
  );
  for (const p of select.iterate() as Iterable<Record<string, number | string | null>>) figures.set(p.geoid as string, p);

  let rowsFilled = 0;
  for (const row of rows) {
    const p = figures.get(row[geoidCol]);
    if (!p) continue;
    for (const d of detail) row[d.index] = p[d.column] === null ? "" : String(p[d.column]);
    row[yearCol] = String(p.acs_detail_year);
    rowsFilled++;
  }

  const tmp = path.join(path.dirname(csvFile), `.${path.basename(csvFile)}.${process.pid}.tmp`);
  fs.writeFileSync(tmp, stringify([header, ...rows]));
  fs.renameSync(tmp, csvFile);
  return { file: csvFile, rows: rows.length, rowsFilled };
}
