import { describe, expect, it } from "vitest";
import { Census } from "../../src/contract/resources.ts";
import { CENSUS_DETAIL_FIELDS, CENSUS_FIELDS, censusValues } from "../../src/contract/census-fields.ts";
import { censusFigures } from "../../src/core/places/census-figures.ts";
import { ACS_VARIABLES, FIELD_RULES } from "../../src/integrations/census/variables.ts";
import { openDatabase } from "../../src/store/db.ts";
import { ACS_DETAIL_COLUMNS } from "../../src/store/places/import-places.ts";
import { freshDataDir } from "../helpers/server.ts";
import fs from "node:fs";
import path from "node:path";

// One registry of census fields (src/contract/census-fields.ts) drives the contract, the database
// columns, the import rules, the facts dataset and the city page's table: these check it covers
// each of them, against the real zod schema and a real migrated database.

describe("the census registry", () => {
  it("covers every figure of the contract's Census object, and nothing else", () => {
    const shape = Census.unwrap().shape;
    const figures = Object.keys(shape).filter((k) => k !== "year").sort();
    expect(CENSUS_FIELDS.map((f) => f.key).sort()).toEqual(figures);
    // Whole-number fields are integers in the contract, others any number; every one may be null.
    for (const f of CENSUS_FIELDS) {
      const field = shape[f.key];
      expect(field.safeParse(null).success, f.key).toBe(true);
      expect(field.safeParse(12.5).success, f.key).toBe(!f.integer);
      expect(field.safeParse(12).success, f.key).toBe(true);
    }
  });

  it("names a column of the places table for every field", () => {
    const dir = freshDataDir("citydaily-census-fields-");
    const db = openDatabase(path.join(dir, "citydaily.db"));
    try {
      const columns = (db.pragma("table_info(places)") as Array<{ name: string }>).map((c) => c.name);
      for (const f of CENSUS_FIELDS) expect(columns, f.column).toContain(f.column);
      // Every column reads back under its key.
      const row = db.prepare("SELECT * FROM places WHERE slug = 'st-louis-missouri'").get() as Record<string, number | null> & Parameters<typeof censusValues>[0];
      const values = censusValues(row);
      for (const f of CENSUS_FIELDS) expect(values[f.key], f.key).toBe(row[f.column]);
      expect(values.population).toBeGreaterThan(250_000);
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("gives the importer one rule per imported field, from a table its variables belong to", () => {
    expect(FIELD_RULES.map((r) => r.field)).toEqual(CENSUS_DETAIL_FIELDS.map((f) => f.key));
    expect(Object.keys(ACS_DETAIL_COLUMNS)).toEqual(CENSUS_DETAIL_FIELDS.map((f) => f.key));
    const groups = new Map<string, string>(ACS_VARIABLES.map((v) => [v.id, v.group]));
    for (const f of CENSUS_DETAIL_FIELDS) {
      const rule = FIELD_RULES.find((r) => r.field === f.key)!;
      expect(rule.integer, f.key).toBe(f.integer);
      expect(rule.variables.map((id) => groups.get(id)), f.key).toContain(f.table);
    }
  });

  it("labels the city page's census table, one row per field plus the density", () => {
    const empty = Object.fromEntries(CENSUS_FIELDS.map((f) => [f.column, null])) as Parameters<typeof censusFigures>[0];
    const rows = censusFigures({ ...empty, population: 1000, land_area_sq_mi: 2, median_rent: 950, over65_percent: 17.25 });
    expect(rows.map((r) => r.label)).toEqual([...CENSUS_FIELDS.flatMap((f) => (f.key === "landAreaSqMi" ? [f.label, "People per square mile"] : [f.label]))]);
    const value = Object.fromEntries(rows.map((r) => [r.label, r.value]));
    expect(value).toMatchObject({ Population: "1,000", "Land area": "2 sq mi", "People per square mile": "500", "Median gross rent": "$950 a month", "Aged 65 and over": "17.3%", "Median age": null });
  });
});
