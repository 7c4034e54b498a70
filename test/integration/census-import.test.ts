import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.ts";
import { PLACES_CSV, PROJECT_ROOT } from "../../src/config/paths.ts";
import { CityResponse } from "../../src/contract/resources.ts";
import { createAcsClient } from "../../src/integrations/census/acs-client.ts";
import { createLogger } from "../../src/lib/log.ts";
import { writePlacesCsv } from "../../src/services/places/census-csv.ts";
import { importCensus } from "../../src/services/places/census-import.ts";
import { databaseFile, openDatabase, type DB } from "../../src/store/db.ts";
import { ACS_DETAIL_COLUMNS, importPlaces } from "../../src/store/places/import-places.ts";
import { startCensusServer, type CensusServer } from "../helpers/census-server.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer } from "../helpers/server.ts";

const SCRIPT = path.join(PROJECT_ROOT, "scripts/census-import.ts");
/** GEOIDs in the fixtures; Fort Rucker (0127640) was renamed Fort Novosel and is not in our dataset under that GEOID. */
const FIXTURE_GEOIDS = ["0100100", "0811810", "1523150", "2965000", "5010675", "7206593"];
const ST_LOUIS = "2965000";
const ABANDA = "0100100";

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `npm run census:import` the way a person would (same script, own process). */
function runImport(env: Record<string, string>, args: string[] = []): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [SCRIPT, ...args],
      { env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "silent", ...env }, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

function placeRow(db: DB, geoid: string) {
  return db.prepare("SELECT * FROM places WHERE geoid = ?").get(geoid) as Record<string, unknown>;
}

/** A digest of every place row, to prove a failed run changed nothing. */
function placesDigest(db: DB): string {
  const hash = crypto.createHash("sha256");
  for (const row of db.prepare("SELECT * FROM places ORDER BY geoid").iterate()) hash.update(JSON.stringify(row));
  return hash.digest("hex");
}

let census: CensusServer;
const dirs: string[] = [];
/**
 * This file's own seed database (places imported once). The shared template is rebuilt by every
 * vitest start, and other suites may be starting while these tests copy it.
 */
let seedDb: string;
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-census-"));
  dirs.push(dir);
  fs.copyFileSync(seedDb, databaseFile(dir));
  return dir;
};

beforeAll(async () => {
  census = await startCensusServer();
  const seedDir = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-census-seed-"));
  dirs.push(seedDir);
  seedDb = databaseFile(seedDir);
  const db = openDatabase(seedDb);
  importPlaces(db, PLACES_CSV);
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
}, 60_000);
afterEach(() => census.configure({ labels: undefined, failDataRequests: 0, validKey: undefined }));
afterAll(async () => {
  await census.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe("npm run census:import", () => {
  it("verifies the labels, then fills the detail fields of every place in the response, sentinels as null", async () => {
    const dataDir = tempDir();
    const before = census.requests.length;
    const run = await runImport({ DATA_DIR: dataDir, CENSUS_API_URL: census.url, CENSUS_API_KEY: "test-key-1" });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("variables verified:      15");
    expect(run.stdout).toContain("places in the response:  7");
    expect(run.stdout).toContain("places updated:          6 (acs_detail_year = 2023)");
    expect(run.stdout).toContain("unmatched GEOIDs:        1 (0127640 Fort Rucker CDP, Alabama)");
    expect(run.stdout).toContain("null values:             9");

    // 15 metadata lookups, then one data call per dataset, each with the key and `for=place:*`.
    const made = census.requests.slice(before);
    expect(made.filter((u) => u.pathname.includes("/variables/"))).toHaveLength(15);
    const data = made.filter((u) => u.searchParams.has("get"));
    expect(data.map((u) => u.pathname).sort()).toEqual(["/data/2023/acs/acs5", "/data/2023/acs/acs5/profile"]);
    for (const u of data) {
      expect(u.searchParams.get("for")).toBe("place:*");
      expect(u.searchParams.get("key")).toBe("test-key-1");
      expect(u.searchParams.get("get")!.split(",")[0]).toBe("NAME");
    }

    const db = openDatabase(databaseFile(dataDir));
    try {
      expect(placeRow(db, ST_LOUIS)).toMatchObject({
        median_income: 55279, median_home_value: 177500, median_rent: 1045, owner_occupied: 63100, renter_occupied: 75320,
        college_degree_percent: 38.9, avg_commute_minutes: 22.8, work_from_home_percent: 12.6,
        walk_bike_transit_percent: 11.3, // (9820 transit + 1460 bicycle + 5230 walked) / 146120 workers
        median_age: 36.4, over65_percent: 15.1, vacancy_rate: 19.7, acs_detail_year: "2023",
        population: 293109, acs_year: "2023", // untouched
      });
      // -666666666, -222222222, -888888888 and zero workers are "no estimate", never a number.
      expect(placeRow(db, ABANDA)).toMatchObject({
        median_income: null, median_home_value: null, median_rent: null, owner_occupied: 12, renter_occupied: null,
        college_degree_percent: 0, avg_commute_minutes: null, work_from_home_percent: null, walk_bike_transit_percent: null,
        median_age: 61.2, over65_percent: 37.5, vacancy_rate: 21.1, acs_detail_year: "2023",
      });
      expect(placeRow(db, "1523150")).toMatchObject({ median_home_value: 2000001, walk_bike_transit_percent: 6.9 }); // top-coded as published
      expect(placeRow(db, "7206593")).toMatchObject({ median_home_value: null, avg_commute_minutes: null, walk_bike_transit_percent: 6.2 });
      // A place the response does not cover keeps its nulls and gets no vintage.
      expect(placeRow(db, "1909550")).toMatchObject({ median_income: null, vacancy_rate: null, acs_detail_year: null });
      expect(db.prepare("SELECT count(*) FROM places WHERE acs_detail_year = '2023'").pluck().get()).toBe(6);
      expect(db.prepare("SELECT value FROM meta WHERE key = 'census_detail_year'").pluck().get()).toBe("2023");
    } finally {
      db.close();
    }
  });

  it("makes the figures and their vintage visible on /api/city and /api/facts", async () => {
    const dataDir = tempDir();
    expect((await runImport({ DATA_DIR: dataDir, CENSUS_API_URL: census.url })).code).toBe(0);
    const server = await startTestServer({ DATA_DIR: dataDir });
    try {
      addSubscriber(server.ctx.db, "st-louis-missouri", "reader@example.org");
      addSubscriber(server.ctx.db, "abanda-alabama", "reader@example.org");

      const city = CityResponse.parse(await (await server.get("/api/city/st-louis-missouri")).json());
      expect(city.census).toMatchObject({
        population: 293109, medianIncome: 55279, medianHomeValue: 177500, medianRent: 1045, ownerOccupied: 63100,
        renterOccupied: 75320, collegeDegreePercent: 38.9, avgCommuteMinutes: 22.8, workFromHomePercent: 12.6,
        walkBikeTransitPercent: 11.3, medianAge: 36.4, over65Percent: 15.1, vacancyRate: 19.7, year: "2023",
      });

      const facts = await (await server.get("/api/facts/st-louis-missouri")).json();
      expect(facts.unavailableVariables).toEqual([]);
      expect([facts.acsVintage].flat()).toContain("2023");
      expect(facts.temporalCoverage).toBe("2019/2023");
      const income = facts.variableMeasured.find((m: { propertyID: string }) => m.propertyID === "medianIncome");
      expect(income).toMatchObject({ value: 55279, unitCode: "USD" });
      expect(income.description).toContain("vintage 2023");

      // Where the Census published no estimate the API says null and the dataset says "not available".
      const abanda = CityResponse.parse(await (await server.get("/api/city/abanda-alabama")).json());
      expect(abanda.census).toMatchObject({ medianIncome: null, walkBikeTransitPercent: null, medianAge: 61.2, year: "2023" });
      const abandaFacts = await (await server.get("/api/facts/abanda-alabama")).json();
      expect(abandaFacts.unavailableVariables).toEqual(
        expect.arrayContaining(["medianIncome", "medianHomeValue", "medianRent", "renterOccupied", "avgCommuteMinutes"]),
      );
      expect(abandaFacts.variableMeasured.map((m: { propertyID: string }) => m.propertyID)).not.toContain("medianIncome");
      expect(abandaFacts.description).toContain("Not available yet: ");
    } finally {
      await server.stop(); // also removes dataDir
    }
  });

  it("aborts on a label mismatch, naming the variable and both labels, and changes nothing", async () => {
    const dataDir = tempDir();
    const db = openDatabase(databaseFile(dataDir));
    const digest = placesDigest(db);
    db.close();
    // As if the 2023 profile had shifted DP05 by three rows.
    census.configure({ labels: { DP05_0024PE: "Percent!!SEX AND AGE!!Total population!!18 years and over" } });
    const dataBefore = census.dataRequests.length;
    const run = await runImport({ DATA_DIR: dataDir, CENSUS_API_URL: census.url });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("DP05_0024PE (acs/acs5/profile)");
    expect(run.stderr).toContain('expected label "Percent!!SEX AND AGE!!Total population!!65 years and over"');
    expect(run.stderr).toContain('publishes "Percent!!SEX AND AGE!!Total population!!18 years and over"');
    expect(run.stderr).toContain("nothing was changed");
    expect(census.dataRequests.length).toBe(dataBefore); // no data fetched at all

    const after = openDatabase(databaseFile(dataDir));
    try {
      expect(placesDigest(after)).toBe(digest);
      expect(after.prepare("SELECT value FROM meta WHERE key = 'census_detail_year'").pluck().get()).toBeUndefined();
    } finally {
      after.close();
    }
  });

  it("says when the API key is refused, without printing the key", async () => {
    census.configure({ validKey: "the-right-key" });
    const run = await runImport({ DATA_DIR: tempDir(), CENSUS_API_URL: census.url, CENSUS_API_KEY: "wrong-key-123" });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("check CENSUS_API_KEY");
    expect(run.stderr).toContain("key=***");
    expect(run.stderr).not.toContain("wrong-key-123");
  });

  it("rejects a malformed --year before touching anything", async () => {
    const run = await runImport({ DATA_DIR: tempDir(), CENSUS_API_URL: census.url }, ["--year", "23"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--year must be an ACS 5-year vintage");
  });

  it("--write-csv fills the detail columns and the vintage and leaves every other cell byte-identical", async () => {
    const dataDir = tempDir();
    const csv = path.join(dataDir, "us-places.csv");
    fs.copyFileSync(PLACES_CSV, csv);
    const shippedSha = crypto.createHash("sha256").update(fs.readFileSync(PLACES_CSV)).digest("hex");

    const run = await runImport({ DATA_DIR: dataDir, CENSUS_API_URL: census.url }, ["--write-csv", "--csv", csv]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`wrote ${csv}: 6 of 32367 rows filled`);

    const oldLines = fs.readFileSync(PLACES_CSV, "utf8").split("\n");
    const newLines = fs.readFileSync(csv, "utf8").split("\n");
    expect(newLines).toHaveLength(oldLines.length);
    expect(newLines[0]).toBe(`${oldLines[0]},acsDetailYear`);
    const filled = new Set(FIXTURE_GEOIDS);
    const keep = (lines: string[]) => lines.slice(1, -1).filter((l) => !filled.has(l.slice(0, 7)));
    const untouched = keep(oldLines).map((l) => `${l},`);
    expect(untouched).toHaveLength(32367 - 6);
    const changed = keep(newLines).filter((line, i) => line !== untouched[i]);
    expect(changed).toEqual([]);

    // Parse just the filled rows (csv-parse on the whole 6 MB file twice is slow on a busy machine).
    const rowOf = (lines: string[], geoid: string): Record<string, string> =>
      (parse(`${lines[0]}\n${lines.find((l) => l.startsWith(`${geoid},`))}\n`, { columns: true }) as Record<string, string>[])[0];
    const stLouis = rowOf(newLines, ST_LOUIS);
    expect(stLouis).toMatchObject({
      medianIncome: "55279", medianHomeValue: "177500", medianRent: "1045", ownerOccupied: "63100", renterOccupied: "75320",
      collegeDegreePercent: "38.9", avgCommuteMinutes: "22.8", workFromHomePercent: "12.6", walkBikeTransitPercent: "11.3",
      medianAge: "36.4", over65Percent: "15.1", vacancyRate: "19.7", acsDetailYear: "2023",
    });
    expect(rowOf(newLines, ABANDA)).toMatchObject({ medianIncome: "", ownerOccupied: "12", acsDetailYear: "2023" });
    const originalStLouis = rowOf(oldLines, ST_LOUIS);
    for (const [k, value] of Object.entries(originalStLouis)) {
      if (!(k in ACS_DETAIL_COLUMNS)) expect(stLouis[k]).toBe(value);
    }

    // Rewriting again is a no-op, and the shipped file was never touched.
    const first = fs.readFileSync(csv);
    const db = openDatabase(databaseFile(dataDir));
    try {
      expect(writePlacesCsv(db, csv)).toEqual({ file: csv, rows: 32367, rowsFilled: 6 });
    } finally {
      db.close();
    }
    expect(fs.readFileSync(csv).equals(first)).toBe(true);
    expect(crypto.createHash("sha256").update(fs.readFileSync(PLACES_CSV)).digest("hex")).toBe(shippedSha);

    // A fresh database built from a regenerated CSV (here two of its rows) has the figures and their vintage.
    const freshDir = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-census-fresh-"));
    dirs.push(freshDir);
    const subset = path.join(freshDir, "places.csv");
    fs.writeFileSync(subset, [newLines[0], ...["1909550", ST_LOUIS].map((g) => newLines.find((l) => l.startsWith(`${g},`))), ""].join("\n"));
    const fresh = openDatabase(path.join(freshDir, "citydaily.db"));
    try {
      importPlaces(fresh, subset);
      expect(placeRow(fresh, ST_LOUIS)).toMatchObject({ median_income: 55279, walk_bike_transit_percent: 11.3, acs_detail_year: "2023" });
      expect(placeRow(fresh, "1909550")).toMatchObject({ median_income: null, acs_detail_year: null });
    } finally {
      fresh.close();
    }
  });
});

describe("the ACS client", () => {
  const ctxFor = (dataDir: string) => {
    const config = loadConfig({ DATA_DIR: dataDir, CENSUS_API_URL: census.url, LOG_LEVEL: "silent" });
    const db = openDatabase(databaseFile(dataDir));
    importPlaces(db, PLACES_CSV); // no-op on the template copy, as in the script
    return { db, config, log: createLogger("silent") };
  };

  it("retries a temporarily unavailable API and then imports", async () => {
    const ctx = ctxFor(tempDir());
    try {
      census.configure({ failDataRequests: 2 });
      const before = census.dataRequests.length;
      const client = createAcsClient({ baseUrl: census.url, retryDelayMs: 5 });
      const report = await importCensus(ctx, { client });
      expect(report.placesUpdated).toBe(6);
      expect(census.dataRequests.length - before).toBe(4); // two 503s, then one success per dataset
    } finally {
      ctx.db.close();
    }
  });

  it("gives up after its retries with the API's answer, leaving the database as it was", async () => {
    const ctx = ctxFor(tempDir());
    try {
      const digest = placesDigest(ctx.db);
      census.configure({ failDataRequests: 10 });
      const client = createAcsClient({ baseUrl: census.url, retries: 2, retryDelayMs: 5 });
      await expect(importCensus(ctx, { client })).rejects.toThrow(/failed after 3 attempts: HTTP 503: 503 Service Unavailable/);
      expect(placesDigest(ctx.db)).toBe(digest);
    } finally {
      ctx.db.close();
    }
  });

  it("splits a long variable list into calls of at most 50 columns and joins them by GEOID", async () => {
    const ids = ["B19013_001E", "B25077_001E", "B25064_001E", "B25003_002E", "B25003_003E", "B01002_001E", "B08301_001E"];
    const whole = await createAcsClient({ baseUrl: census.url }).places(2023, "acs/acs5", ids);
    const split = await createAcsClient({ baseUrl: census.url, maxVariablesPerRequest: 3 }).places(2023, "acs/acs5", ids);
    expect(whole.requests).toBe(1);
    expect(split.requests).toBe(4); // NAME + 2 variables per call
    expect([...split.rows.entries()]).toEqual([...whole.rows.entries()]);
    expect(whole.rows.get(ST_LOUIS)).toMatchObject({ NAME: "St. Louis city, Missouri", B19013_001E: "55279" });
  });

  it("reports an unknown variable with the API's own message", async () => {
    const client = createAcsClient({ baseUrl: census.url });
    await expect(client.places(2023, "acs/acs5", ["B99999_001E"])).rejects.toThrow(/answered 400: error: error: unknown variable 'B99999_001E'/);
  });
});
