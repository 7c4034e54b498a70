import { describe, expect, it } from "vitest";
import { ACS_VARIABLES, expectedText, FIELD_RULES, normalizeLabel, parseCensusValue } from "../../src/integrations/census/variables.ts";
import { deriveFields } from "../../src/services/places/census-import.ts";
import { ACS_DETAIL_COLUMNS } from "../../src/store/places/import-places.ts";

describe("census variables", () => {
  it("cover every ACS detail column exactly once, with variables that are all verified", () => {
    expect(FIELD_RULES.map((r) => r.field).sort()).toEqual(Object.keys(ACS_DETAIL_COLUMNS).sort());
    const known = new Set<string>(ACS_VARIABLES.map((v) => v.id));
    for (const rule of FIELD_RULES) for (const id of rule.variables) expect(known.has(id)).toBe(true);
    for (const v of ACS_VARIABLES) expect(v.id.startsWith(v.group)).toBe(true);
  });

  it("compare labels across the Bureau's formatting changes but not across meanings", () => {
    expect(normalizeLabel("Estimate!!Total!!Owner occupied")).toBe(normalizeLabel("Estimate!!Total:!!Owner occupied"));
    expect(normalizeLabel("MEDIAN VALUE (DOLLARS)")).toBe(normalizeLabel("Median Value (Dollars)"));
    expect(normalizeLabel("Percent!!SEX AND AGE!!Total population!!65 years and over")).not.toBe(
      normalizeLabel("Percent!!SEX AND AGE!!Total population!!62 years and over"),
    );
    expect(expectedText("(in {year} inflation-adjusted dollars)", 2023)).toBe("(in 2023 inflation-adjusted dollars)");
  });

  it("read annotation sentinels, blanks and negatives as no estimate", () => {
    for (const raw of ["-666666666", "-999999999", "-888888888", "-222222222", "-555555555", null, "", "N", "-5"]) {
      expect(parseCensusValue(raw)).toBeNull();
    }
    expect(parseCensusValue("0")).toBe(0);
    expect(parseCensusValue("36.4")).toBe(36.4);
    expect(parseCensusValue(55279)).toBe(55279);
  });

  it("derive walk/bike/transit from B08301 and keep integers whole", () => {
    const fields = deriveFields({
      B19013_001E: "55279.0", B08301_001E: "1000", B08301_010E: "100", B08301_018E: "25", B08301_019E: "0", DP05_0024PE: "15.1",
    });
    expect(fields.medianIncome).toBe(55279);
    expect(fields.walkBikeTransitPercent).toBe(12.5);
    expect(fields.over65Percent).toBe(15.1);
    expect(fields.medianRent).toBeNull();
    expect(deriveFields({ B08301_001E: "0", B08301_010E: "0", B08301_018E: "0", B08301_019E: "0" }).walkBikeTransitPercent).toBeNull();
  });
});
