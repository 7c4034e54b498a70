import { CENSUS_DETAIL_FIELDS, type CensusDetailKey } from "../../contract/census-fields.ts";
import type { DB } from "../db.ts";
import { setMeta } from "../platform/meta.ts";

// The ACS detail figures of `places` (the `acsDetail` fields of src/contract/census-fields.ts), as
// `npm run census:import` writes them and `--write-csv` reads them back.

export type DetailFigures = Record<CensusDetailKey, number | null>;

export interface DetailUpdate {
  /** Places of the database that got the vintage's figures. */
  updated: number;
  /** GEOIDs given that the database does not have. */
  unknown: string[];
}

/**
 * Writes one vintage's detail figures for many places in one write transaction, and records the
 * vintage in `meta`. Places not in `figures` are left as they were.
 */
export function updateCensusDetail(db: DB, year: string, figures: Iterable<[geoid: string, values: DetailFigures]>, importedAt: string): DetailUpdate {
  const update = db.prepare(
    `UPDATE places SET ${CENSUS_DETAIL_FIELDS.map((f) => `${f.column} = @${f.key}`).join(", ")}, acs_detail_year = @year WHERE geoid = @geoid`,
  );
  const result: DetailUpdate = { updated: 0, unknown: [] };
  db.transaction(() => {
    for (const [geoid, values] of figures) {
      if (update.run({ ...values, year, geoid }).changes === 0) result.unknown.push(geoid);
      else result.updated++;
    }
    setMeta(db, "census_detail_year", year);
    setMeta(db, "census_imported_at", importedAt);
  }).immediate();
  return result;
}

export function countPlaces(db: DB): number {
  return db.prepare("SELECT count(*) FROM places").pluck().get() as number;
}

/** Every place with imported detail figures: GEOID, vintage and the figures by Census object key. */
export function* placesWithCensusDetail(db: DB): Generator<{ geoid: string; year: string; values: DetailFigures }> {
  const select = db.prepare(
    `SELECT geoid, acs_detail_year, ${CENSUS_DETAIL_FIELDS.map((f) => `${f.column} AS ${f.key}`).join(", ")} FROM places WHERE acs_detail_year IS NOT NULL`,
  );
  for (const row of select.iterate() as Iterable<Record<string, string | number | null>>) {
    const { geoid, acs_detail_year, ...values } = row;
    yield { geoid: geoid as string, year: acs_detail_year as string, values: values as DetailFigures };
  }
}
