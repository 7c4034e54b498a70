import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PLACES_CSV } from "../../src/config/paths.ts";
import { isWellFormedSlug } from "../../src/contract/slug.ts";
import { openDatabase } from "../../src/store/db.ts";
import { importPlaces } from "../../src/store/places/import-places.ts";
import { startTestServer } from "../helpers/server.ts";

const dirs: string[] = [];
const tempDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-import-"));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

describe("places import", () => {
  it("imports the dataset on first start, and a second start neither re-imports nor duplicates", async () => {
    const dataDir = tempDir();
    const first = await startTestServer({ DATA_DIR: dataDir });
    const count = () => first.ctx.db.prepare("SELECT COUNT(*) FROM places").pluck().get();
    expect(count()).toBe(32367);
    const importedAt = first.ctx.db.prepare("SELECT value FROM meta WHERE key = 'places_imported_at'").pluck().get();
    expect(importedAt).toBeTruthy();
    // The server answers from the imported data.
    const res = await first.get("/api/cities-census?state=Colorado&minPopulation=15000");
    const body = await res.json();
    expect(body.states[0].cities.map((c: { slug: string }) => c.slug)).toContain("canon-city-colorado");
    await first.close();

    const second = await startTestServer({ DATA_DIR: dataDir });
    expect(second.ctx.db.prepare("SELECT COUNT(*) FROM places").pluck().get()).toBe(32367);
    expect(second.ctx.db.prepare("SELECT value FROM meta WHERE key = 'places_imported_at'").pluck().get()).toBe(importedAt);
    await second.stop();
  });

  it("gives every place a unique, well-formed slug; shared names get the county inserted", () => {
    const db = openDatabase(path.join(tempDir(), "citydaily.db"));
    importPlaces(db, PLACES_CSV);
    const slugs = db.prepare("SELECT slug FROM places").pluck().all() as string[];
    expect(new Set(slugs).size).toBe(slugs.length);
    expect(slugs.filter((s) => !isWellFormedSlug(s))).toEqual([]);
    const slugOf = (name: string, county: string) =>
      db.prepare("SELECT slug FROM places WHERE name = ? AND county_name = ?").pluck().get(name, county);
    expect(slugOf("Kailua", "Honolulu County")).toBe("kailua-hawaii");
    expect(slugOf("Kailua", "Hawaii County")).toBe("kailua-hawaii-county-hawaii");
    expect(db.prepare("SELECT name FROM places WHERE slug = 'canon-city-colorado'").pluck().get()).toBe("Cañon City");
    expect(db.prepare("SELECT name FROM places WHERE slug = 'st-louis-missouri'").pluck().get()).toBe("St. Louis");
    db.close();
  });

  it("upserts a changed dataset by GEOID: new places added, existing slugs and imported ACS figures kept", () => {
    const dir = tempDir();
    const db = openDatabase(path.join(dir, "citydaily.db"));
    importPlaces(db, PLACES_CSV);
    db.prepare("UPDATE places SET median_income = 81234, acs_detail_year = '2023' WHERE slug = 'st-louis-missouri'").run();

    const lines = fs.readFileSync(PLACES_CSV, "utf8").trimEnd().split("\n");
    const header = lines[0].split(",");
    const kailua = lines.find((l) => l.startsWith("1523150,"))!.split(",");
    // A new place named like an existing one: it must not take the existing slug.
    const added = [...kailua];
    added[header.indexOf("geoid")] = "1599999";
    added[header.indexOf("population")] = "999999";
    const changed = [...lines, added.join(",")].join("\n") + "\n";
    const csv = path.join(dir, "places.csv");
    fs.writeFileSync(csv, changed);

    expect(importPlaces(db, csv)).toEqual({ imported: true, rows: 32368 });
    expect(importPlaces(db, csv)).toEqual({ imported: false, rows: 0 });
    expect(db.prepare("SELECT COUNT(*) FROM places").pluck().get()).toBe(32368);
    expect(db.prepare("SELECT slug FROM places WHERE geoid = '1523150'").pluck().get()).toBe("kailua-hawaii");
    const newSlug = db.prepare("SELECT slug FROM places WHERE geoid = '1599999'").pluck().get() as string;
    expect(newSlug).not.toBe("kailua-hawaii");
    expect(isWellFormedSlug(newSlug)).toBe(true);
    expect(db.prepare("SELECT median_income FROM places WHERE slug = 'st-louis-missouri'").pluck().get()).toBe(81234);
    db.close();
  });
});
