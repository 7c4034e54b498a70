import { describe, expect, it } from "vitest";
import { assignSlugs, isWellFormedSlug, slugify } from "../../src/contract/slug.ts";

describe("slugify", () => {
  it.each([
    [["Cañon City", "Colorado"], "canon-city-colorado"],
    [["St. Louis", "Missouri"], "st-louis-missouri"],
    [["Winston-Salem", "North Carolina"], "winston-salem-north-carolina"],
    [["Coeur d'Alene", "Idaho"], "coeur-dalene-idaho"],
    [["O'Fallon", "Missouri"], "ofallon-missouri"],
    [["Utqiaġvik", "Alaska"], "utqiagvik-alaska"],
    [["Española", "New Mexico"], "espanola-new-mexico"],
    [["Sčilíp", "Montana"], "scilip-montana"],
    [["Washington", "District of Columbia"], "washington-district-of-columbia"],
    [["Village of Oak Creek", "Arizona"], "village-of-oak-creek-arizona"],
    [["Penn State Erie (Behrend)", "Pennsylvania"], "penn-state-erie-behrend-pennsylvania"],
    [["  Lake  --  Forest ", "Illinois"], "lake-forest-illinois"],
    [["Straße", "Texas"], "strasse-texas"],
  ])("%j -> %s", (parts, slug) => {
    expect(slugify(...parts)).toBe(slug);
  });
});

describe("isWellFormedSlug", () => {
  it.each(["st-louis-missouri", "canon-city-colorado", "washington-district-of-columbia", "kailua-hawaii-county-hawaii"])("accepts %s", (s) => {
    expect(isWellFormedSlug(s)).toBe(true);
  });
  it.each([
    "springfield", "missouri", "-missouri", "St-Louis-Missouri", "st--louis-missouri", "st-louis-missouri-",
    "st_louis_missouri", "cañon-city-colorado", "st-louis-mo", "a".repeat(200) + "-ohio", "",
  ])("rejects %j", (s) => {
    expect(isWellFormedSlug(s)).toBe(false);
  });
});

describe("assignSlugs (collisions within a state)", () => {
  const place = (geoid: string, name: string, countyName: string | null, population: number | null, placeType = "CDP") => ({
    geoid, name, stateName: "Hawaii", countyName, placeType, population,
  });

  it("gives the plain slug to the most populous place and inserts the county for the others", () => {
    const slugs = assignSlugs([
      place("1523200", "Kailua", "Hawaii County", 12000),
      place("1523150", "Kailua", "Honolulu County", 39762),
      place("1500001", "Hilo", "Hawaii County", 48000),
    ]);
    expect(slugs.get("1523150")).toBe("kailua-hawaii");
    expect(slugs.get("1523200")).toBe("kailua-hawaii-county-hawaii");
    expect(slugs.get("1500001")).toBe("hilo-hawaii");
  });

  it("falls back to place type, then GEOID, and never repeats a slug", () => {
    const slugs = assignSlugs([
      place("1", "Midway", "Kauai County", 500, "CDP"),
      place("2", "Midway", "Kauai County", 400, "CDP"),
      place("3", "Midway", "Kauai County", 300, "town"),
      place("4", "Midway", null, null, "CDP"),
    ]);
    expect(slugs.get("1")).toBe("midway-hawaii");
    expect(slugs.get("2")).toBe("midway-kauai-county-hawaii");
    expect(slugs.get("3")).toBe("midway-kauai-county-town-hawaii");
    expect(new Set(slugs.values()).size).toBe(4);
    expect([...slugs.values()].every(isWellFormedSlug)).toBe(true);
  });

  it("treats names that fold to the same slug as a collision", () => {
    const slugs = assignSlugs([place("1", "Cañon", "A County", 10), place("2", "Canon", "B County", 20)]);
    expect(slugs.get("2")).toBe("canon-hawaii");
    expect(slugs.get("1")).toBe("canon-a-county-hawaii");
  });
});
