import fs from "node:fs";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import { CENSUS_DETAIL_FIELDS } from "../../contract/census-fields.ts";
import type { DB } from "../../store/db.ts";
import { placesWithCensusDetail } from "../../store/places/census.ts";

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
  const detail = CENSUS_DETAIL_FIELDS.map((f) => ({ field: f.key, index: col(f.key) }));
  const missing = [geoidCol < 0 ? "geoid" : undefined, ...detail.filter((d) => d.index < 0).map((d) => d.field)].filter(Boolean);
  if (missing.length) throw new Error(`${csvFile} has no column(s) ${missing.join(", ")}`);
  let yearCol = col(ACS_DETAIL_YEAR_COLUMN);
  if (yearCol < 0) {
    yearCol = header.length;
    header.push(ACS_DETAIL_YEAR_COLUMN);
    for (const row of rows) row.push("");
  }

  const figures = new Map<string, { year: string; values: Record<string, number | null> }>();
  for (const p of placesWithCensusDetail(db)) figures.set(p.geoid, p);

  let rowsFilled = 0;
  for (const row of rows) {
    const p = figures.get(row[geoidCol]);
    if (!p) continue;
    for (const d of detail) row[d.index] = p.values[d.field] === null ? "" : String(p.values[d.field]);
    row[yearCol] = p.year;
    rowsFilled++;
  }

  const tmp = path.join(path.dirname(csvFile), `.${path.basename(csvFile)}.${process.pid}.tmp`);
  fs.writeFileSync(tmp, stringify([header, ...rows]));
  fs.renameSync(tmp, csvFile);
  return { file: csvFile, rows: rows.length, rowsFilled };
}
