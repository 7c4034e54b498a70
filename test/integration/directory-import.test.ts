import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, databaseFile } from "../../src/store/db.ts";
import { upsertCandidates } from "../../src/store/directory/candidates.ts";
import { freshDataDir, startTestServer } from "../helpers/server.ts";

// The town directory's importer on the real places data and small copies of the six dataset files in
// their shipped formats (csv, json, json.gz), through `npm run admin -- directory import|list` and the
// server's first start. Each fixture row's fate is checked in the database.

const ROOT = path.resolve(import.meta.dirname, "../..");
const NOW = "2026-11-26T12:00:00.000Z";

const csv = (rows: string[][]) => rows.map((r) => r.map((v) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v)).join(",")).join("\n") + "\n";
const near = (lat: number, lon: number) => ({ "city-county-lat": lat, "city-county-long": lon });

function writeFixtures(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "city-websites-uscityurl-2022.csv"), csv([
    ["GEOID", "MUNICIPALITY", "STATE", "WEBSITE_AVAILABLE", "WEBSITE_URL"],
    ["1600000US3223500", "Ely", "Nevada", "1", "https://www.elycity.com/"],
    ["1600000US3710740", "Cary", "North Carolina", "1", "www.carync.gov"],
    ["1600000US3260600", "Reno", "Nevada", "0", ""],
    ["1600000US3299999", "Nowhere", "Nevada", "1", "https://nowhere.example/"],
    ["1600000US3263800", "Ruth", "Texas", "1", "https://ruth.example/"],
  ]));
  const gov = (domain: string, type: string, org: string, city: string, state: string) => [domain, type, org, "", city, state, "(blank)"];
  fs.writeFileSync(path.join(dir, "dotgov-domains-2026-08-22.csv"), csv([
    ["Domain name", "Domain type", "Organization name", "Suborganization name", "City", "State", "Security contact email"],
    gov("elynv.gov", "City", "City of Ely", "Ely", "NV"),
    gov("carync.gov", "City", "Town of Cary", "Cary", "NC"),
    gov("oak-park.gov", "City", "Village of Oak Park", "Oak Park", "IL"),
    gov("whitepinecountynv.gov", "County", "White Pine County", "Ely", "NV"),
    gov("renotx.gov", "City", "City of Reno", "Reno", "TX"),
    gov("midwayar.gov", "City", "Town of Midway", "Malvern", "AR"),
    gov("jeffersoncitymo.gov", "City", "City of Jefferson", "Jefferson City", "MO"),
    gov("townofhempstead.gov", "City", "Town of Hempstead", "Hempstead", "NY"),
    gov("wpsheriff.gov", "County", "White Pine County Sheriff's Office", "Ely", "NV"),
    gov("nv.gov", "State or territory", "State of Nevada", "Carson City", "NV"),
  ]));
  fs.writeFileSync(path.join(dir, "news-outlets-local-memory-2016.json"), JSON.stringify({
    NV: {
      newspaper: [
        { name: "Ely Times", website: "http://www.elynews.com/", rss: ["http://www.elynews.com/feed/", "http://www.elynews.com/comments/feed/"], "city-county-name": "Ely", ...near(39.2474, -114.8886), "media-class": "newspaper" },
        { name: "Far Gazette", website: "http://fargazette.example/", rss: [], "city-county-name": "Ely", ...near(39.5296, -119.8138), "media-class": "newspaper" },
      ],
      radio: [{ name: "KELY 1230 AM", website: "http://kely.example/", rss: [], "city-county-name": "Ely", ...near(39.25, -114.89), "media-class": "radio" }],
    },
    AL: { newspaper: [{ name: "Mount Olive Messenger", website: "http://momessenger.example/", rss: [], "city-county-name": "Mount Olive", ...near(33.67, -86.87) }] },
    AR: { newspaper: [{ name: "Midway Messenger", website: "http://midwaymessenger.example/", rss: [], "city-county-name": "Midway", ...near(34.25, -92.97) }] },
    CO: { "state-name": ["Co"] },
  }));
  fs.writeFileSync(path.join(dir, "news-outlets-3dlnews-2016-2024.json.gz"), zlib.gzipSync(JSON.stringify({
    NV: {
      newspaper: [
        { name: "White Pine Weekly", website: "https://wpweekly.example/news/", rss: ["/feed/", "https://wpweekly.example/comments/feed", "rss.xml"], fips: "32033", "city-county-name": "White Pine County", ...near(39.26, -114.87), "us-state": "Nevada", "media-class": "newspaper" },
        { name: "Ely Times", website: "http://www.elynews.com/", rss: ["http://www.elynews.com/feed/"], fips: "32033", "city-county-name": "White Pine County", ...near(39.2474, -114.8886), "us-state": "Nevada", "media-class": "newspaper" },
      ],
      tv: [{ name: "KTVN", website: "https://www.ktvn.com/", rss: [], fips: "32031", "city-county-name": "Washoe County", ...near(39.53, -119.81), "us-state": "Nevada", "media-class": "tv" }],
    },
    // Fairfield County's old code: Stamford's planning region (09190) by the coordinates.
    CT: { newspaper: [{ name: "Stamford Advocate", website: "https://www.stamfordadvocate.com/", rss: [], fips: "09001", "city-county-name": "Fairfield County", ...near(41.0534, -73.5387), "us-state": "Connecticut", "media-class": "newspaper" }] },
  })));
  fs.writeFileSync(path.join(dir, "civicplus-sites-2020.csv"), csv([
    ["end_point", "begin_year", "end_year", "scraper_type", "whitelisted", "name", "state", "country", "govt_level", "meeting_bodies"],
    ["http://nv-ely.civicplus.com/AgendaCenter", "2015", "2020", "civicplus", "TRUE", "Ely", "NV", "USA", "Municipality", "['City Council', 'Planning Commission']"],
    ["http://nv-whitepinecounty.civicplus.com/AgendaCenter", "2012", "2020", "civicplus", "TRUE", "White Pine County", "NV", "USA", "County", "[]"],
    ["http://ab-banff.civicplus.com/AgendaCenter", "2010", "2020", "civicplus", "TRUE", "Banff", "AB", "CANADA", "Municipality", "[]"],
    ["http://nv-elywater.civicplus.com/AgendaCenter", "2016", "2020", "civicplus", "TRUE", "Ely Water District", "NV", "USA", "Other", "[]"],
  ]));
  fs.writeFileSync(path.join(dir, "legistar-sites-2021.csv"), csv([
    ["site_type", "endpoint", "name", "state", "country", "sites_to_test"],
    ["municipality", "kpb.legistar.com/Calendar.aspx", "Kenai Peninsula Borough", "AK", "United States", ""],
    ["municipality", "hayward.legistar.com/Calendar.aspx", "Hayward", "CA", "United States", ""],
    ["transportation", "bart.legistar.com/Calendar.aspx", "San Francisco Bay Area Rapid Transit District", "CA", "United States", ""],
  ]));
}

interface Row {
  place_geoid: string; kind: string; scope: string; name: string; url: string; feed_urls: string;
  platform: string | null; platform_id: string | null; dataset: string; dataset_row: string; imported_at: string;
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-directory-"));
const sourcesDir = path.join(tmp, "sources");
let dataDir: string;

async function admin(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ["scripts/admin.ts", ...args], {
      cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "silent", NOW, TOWN_SOURCES_DIR: sourcesDir, ...env },
    });
    return { code: 0, stdout };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout + e.stderr };
  }
}

function rowsOf(dir: string): Row[] {
  const db = openDatabase(databaseFile(dir));
  try {
    return db.prepare("SELECT * FROM town_source_candidates ORDER BY place_geoid, kind, url").all() as Row[];
  } finally {
    db.close();
  }
}
function placesOfCounty(dir: string, county: string): string[] {
  const db = openDatabase(databaseFile(dir));
  try {
    return db.prepare("SELECT geoid FROM places WHERE county_geoid = ? ORDER BY geoid").pluck().all(county) as string[];
  } finally {
    db.close();
  }
}

beforeAll(() => {
  writeFixtures(sourcesDir);
  dataDir = freshDataDir();
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("npm run admin -- directory import", () => {
  let rows: Row[];
  const at = (geoid: string, kind?: string) => rows.filter((r) => r.place_geoid === geoid && (!kind || r.kind === kind));

  beforeAll(async () => {
    const run = await admin(["directory", "import"]);
    expect(run.code).toBe(0);
    // What each file's rows came to, then the counts.
    expect(run.stdout).toContain("city-websites-uscityurl-2022.csv: 5 rows; matched 2, no_url 1, no_place 1, state_mismatch 1");
    expect(run.stdout).toContain("dotgov-domains-2026-08-22.csv: 10 rows; matched 6, ambiguous 1, no_place 1, not_government 2");
    expect(run.stdout).toContain("news-outlets-local-memory-2016.json: 5 rows; matched 2, far 1, ambiguous 2");
    expect(run.stdout).toContain("news-outlets-3dlnews-2016-2024.json.gz: 4 rows; matched 3, county_by_coordinates 1");
    expect(run.stdout).toContain("civicplus-sites-2020.csv: 4 rows; matched 2, not_us 1, not_government 1");
    expect(run.stdout).toContain("legistar-sites-2021.csv: 3 rows; matched 2, not_government 1");
    expect(run.stdout).toMatch(/places with at least one candidate: [\d,]+ \(\d+%\) of 32,367/);
    expect(run.stdout).toMatch(/\n {2}news\/county +[\d,]+ \(\d+%\) +\([\d,]+\)/);
    rows = rowsOf(dataDir);
  });

  it("joins UScityURL on the place GEOID: the government website, an absolute http(s) home page", () => {
    expect(at("3223500", "government")).toEqual([expect.objectContaining({
      scope: "town", name: "City of Ely", url: "https://www.elycity.com/", feed_urls: "[]", dataset: "city-websites-uscityurl-2022.csv", dataset_row: "1600000US3223500",
    })]);
    expect(at("3710740", "government")).toEqual([expect.objectContaining({ name: "Town of Cary", url: "http://www.carync.gov/" })]);
    // No website; a GEOID of no place; a GEOID whose state disagrees (Ruth, NV is no Texas place).
    expect(at("3260600", "government")).toEqual([]);
    expect(at("3263800", "government")).toEqual([]);
  });

  it("matches .gov domains by the organisation's name and state", () => {
    expect(at("3223500", "gov_domain").map((r) => [r.scope, r.name, r.url, r.dataset_row])).toEqual([
      ["town", "City of Ely", "https://elynv.gov/", "elynv.gov"],
      ["county", "White Pine County", "https://whitepinecountynv.gov/", "whitepinecountynv.gov"],
    ]);
    expect(at("1754885", "gov_domain").map((r) => r.name)).toEqual(["Village of Oak Park"]); // Oak Park, IL, not the CDP in California
    expect(at("0653116")).toEqual([]);
    expect(at("0545560", "gov_domain").map((r) => r.name)).toEqual(["Town of Midway"]); // Arkansas's town, not its Midway CDP
    expect(at("0545530")).toEqual([]);
    expect(at("2937000", "gov_domain").map((r) => r.name)).toEqual(["City of Jefferson"]);
    // Cary's .gov domain is its website already; Texas has two cities named Reno; New York's Town of Hempstead is not the village.
    expect(at("3710740", "gov_domain")).toEqual([]);
    const refused = ["https://renotx.gov/", "https://townofhempstead.gov/", "https://wpsheriff.gov/", "https://nv.gov/"];
    expect(rows.filter((r) => refused.includes(r.url))).toEqual([]);
  });

  it("gives every place of a county its county-wide sources, and no place outside it", () => {
    const whitePine = placesOfCounty(dataDir, "32033");
    expect(whitePine).toEqual(["3204100", "3223500", "3243400", "3244200", "3258000", "3263800"]);
    for (const url of ["https://whitepinecountynv.gov/", "https://wpweekly.example/news/", "http://nv-whitepinecounty.civicplus.com/"]) {
      expect(rows.filter((r) => r.url === url).map((r) => [r.place_geoid, r.scope])).toEqual(whitePine.map((g) => [g, "county"]));
    }
    const kenai = placesOfCounty(dataDir, "02122");
    expect(kenai.length).toBeGreaterThan(20);
    expect(rows.filter((r) => r.platform_id === "kpb").map((r) => r.place_geoid)).toEqual(kenai);
  });

  it("news: a town outlet near its town is a town source; the same site elsewhere in the county a county source", () => {
    const ely = at("3223500", "news");
    expect(ely.map((r) => [r.scope, r.name, r.url, JSON.parse(r.feed_urls), r.dataset, r.dataset_row])).toEqual([
      ["town", "KELY 1230 AM", "http://kely.example/", [], "news-outlets-local-memory-2016.json", "NV.radio[0]"],
      ["town", "Ely Times", "http://www.elynews.com/", ["http://www.elynews.com/feed/"], "news-outlets-local-memory-2016.json", "NV.newspaper[0]"],
      // Relative feeds resolved against the site, the comment feed dropped.
      ["county", "White Pine Weekly", "https://wpweekly.example/news/", ["https://wpweekly.example/feed/", "https://wpweekly.example/news/rss.xml"], "news-outlets-3dlnews-2016-2024.json.gz", "NV.newspaper[0]"],
    ]);
    expect(at("3244200", "news").map((r) => [r.scope, r.name])).toEqual([["county", "Ely Times"], ["county", "White Pine Weekly"]]);
    // Far Gazette names Ely but sits in Reno: no town source, and no county it could be given to.
    expect(rows.filter((r) => r.name === "Far Gazette")).toEqual([]);
    // Two Mount Olives in Alabama, two Midways in Arkansas: not guessed.
    expect(rows.filter((r) => /messenger/.test(r.url))).toEqual([]);
    expect(rows.filter((r) => r.url === "https://www.ktvn.com/").every((r) => r.scope === "county")).toBe(true);
    expect(rows.some((r) => r.url === "https://www.ktvn.com/" && r.place_geoid === "3260600")).toBe(true);
    const westernCt = placesOfCounty(dataDir, "09190");
    expect(westernCt).toContain("0973000"); // Stamford
    expect(rows.filter((r) => r.name === "Stamford Advocate").map((r) => [r.place_geoid, r.scope])).toEqual(westernCt.map((g) => [g, "county"]));
  });

  it("records CivicPlus hosts and Legistar clients as platform and platform_id", () => {
    expect(at("3223500", "civic").map((r) => [r.scope, r.name, r.url, r.platform, r.platform_id, r.dataset_row])).toEqual([
      ["town", "Ely", "http://nv-ely.civicplus.com/", "civicplus", "nv-ely.civicplus.com", "http://nv-ely.civicplus.com/AgendaCenter"],
      ["county", "White Pine County", "http://nv-whitepinecounty.civicplus.com/", "civicplus", "nv-whitepinecounty.civicplus.com", "http://nv-whitepinecounty.civicplus.com/AgendaCenter"],
    ]);
    expect(at("0633000", "civic").map((r) => [r.scope, r.url, r.platform, r.platform_id, r.dataset])).toEqual([
      ["town", "https://hayward.legistar.com/Calendar.aspx", "legistar", "hayward", "legistar-sites-2021.csv"],
    ]);
    expect(at("0238420", "civic").map((r) => [r.scope, r.name, r.url, r.platform_id])).toEqual([
      ["county", "Kenai Peninsula Borough", "https://kpb.legistar.com/Calendar.aspx", "kpb"],
    ]);
    expect(rows.some((r) => /banff|elywater|bart/.test(r.url))).toBe(false);
  });

  it("is idempotent: importing again changes nothing", async () => {
    const again = await admin(["directory", "import"]);
    expect(again.stdout).toContain(`stored: 0 added, 0 updated, 0 removed, ${rows.length} unchanged`);
    expect(rowsOf(dataDir)).toEqual(rows);
  });

  it("follows the files: a row gone from a dataset is removed unless checked; other sources' rows stay", async () => {
    const file = path.join(sourcesDir, "city-websites-uscityurl-2022.csv");
    const original = fs.readFileSync(file, "utf8");
    const db = openDatabase(databaseFile(dataDir));
    db.prepare("UPDATE town_source_candidates SET checked_at = ?, check_status = 'stale' WHERE url = 'http://www.carync.gov/'").run(NOW);
    upsertCandidates(db, [{ placeGeoid: "0633000", kind: "news", scope: "town", name: "Hayward Daily", url: "https://haywarddaily.example/", feedUrls: [],
      platform: null, platformId: null, dataset: "added by hand", datasetRow: "-" }], NOW);
    db.close();
    try {
      fs.writeFileSync(file, original.replace("www.carync.gov", "https://www.townofcary.org/").replace(/^1600000US3223500.*\n/m, ""));
      const run = await admin(["directory", "import"]);
      // Cary: its new website, and its .gov domain (no longer the same site); Ely's website gone; Cary's old one kept (checked).
      expect(run.stdout).toMatch(/stored: 2 added, 0 updated, 1 removed/);
      const now = rowsOf(dataDir);
      expect(now.filter((r) => r.place_geoid === "3710740" && r.kind !== "news").map((r) => [r.kind, r.url])).toEqual([
        ["gov_domain", "https://carync.gov/"], ["government", "http://www.carync.gov/"], ["government", "https://www.townofcary.org/"],
      ]);
      expect(now.filter((r) => r.place_geoid === "3223500" && r.kind === "government")).toEqual([]);
      expect(now.filter((r) => r.url === "https://haywarddaily.example/")).toHaveLength(1);
    } finally {
      fs.writeFileSync(file, original);
      expect((await admin(["directory", "import"])).stdout).toMatch(/stored: 1 added, 0 updated, 2 removed/);
    }
  });

  it("lists a town's candidates with kind, scope, name, URL, feeds, dataset and row, and verification", async () => {
    const db = openDatabase(databaseFile(dataDir));
    const id = db.prepare("SELECT id FROM town_source_candidates WHERE place_geoid = '3223500' AND url = 'http://www.elynews.com/'").pluck().get() as number;
    db.prepare("UPDATE town_source_candidates SET checked_at = ?, check_status = 'verified', check_detail = 'RSS, 20 items' WHERE id = ?").run(NOW, id);
    db.close();
    const list = await admin(["directory", "list", "ely-nevada"]);
    expect(list.code).toBe(0);
    const lines = list.stdout.split("\n");
    expect(lines[0]).toBe("Ely, Nevada (ely-nevada): 8 candidate(s), 1 verified");
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^ +${id}  news +town +"Ely Times"  http://www\\.elynews\\.com/  feeds: http://www\\.elynews\\.com/feed/  from news-outlets-local-memory-2016\\.json NV\\.newspaper\\[0\\]  verified ${NOW}: RSS, 20 items$`)));
    expect(lines).toContainEqual(expect.stringMatching(/ civic +county "White Pine County"  http:\/\/nv-whitepinecounty\.civicplus\.com\/  \[civicplus nv-whitepinecounty\.civicplus\.com\]  feeds: none  from civicplus-sites-2020\.csv http:\/\/nv-whitepinecounty\.civicplus\.com\/AgendaCenter  not checked$/));
    expect(lines).toContainEqual(expect.stringMatching(/ government town +"City of Ely"  https:\/\/www\.elycity\.com\/  feeds: none  from city-websites-uscityurl-2022\.csv 1600000US3223500  not checked$/));
    expect(list.stdout).toContain("0 feed(s) of the town added from the directory");

    const unknown = await admin(["directory", "list", "no-such-town"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toContain('town_not_found: no town has the slug "no-such-town"');
  });
});

/** The server imports in the background: its /readyz check says when the import has ended, and how. */
async function importEnded(server: Awaited<ReturnType<typeof startTestServer>>): Promise<string> {
  for (;;) {
    const check = ((await (await server.get("/readyz")).json()) as { checks: Record<string, Array<{ output: string }>> }).checks["directory:import"]![0]!;
    if (!/^(checking|importing)/.test(check.output)) return check.output;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("the server's first start", () => {
  it("imports the directory when it (or the files) changed, and only then", async () => {
    const dir = freshDataDir();
    const first = await startTestServer({ DATA_DIR: dir, TOWN_DIRECTORY_IMPORT: "start", TOWN_SOURCES_DIR: sourcesDir });
    expect(await importEnded(first)).toMatch(/^imported \d+ candidates in /);
    await first.close();
    const imported = rowsOf(dir);
    expect(imported.filter((r) => r.place_geoid === "3223500").length).toBe(8);
    // Same files, places and rules: the second start does not import (a row removed by hand stays removed).
    const db = openDatabase(databaseFile(dir));
    db.prepare("DELETE FROM town_source_candidates WHERE url = 'http://kely.example/'").run();
    db.close();
    const second = await startTestServer({ DATA_DIR: dir, TOWN_DIRECTORY_IMPORT: "start", TOWN_SOURCES_DIR: sourcesDir });
    expect(await importEnded(second)).toMatch(/unchanged since their last import/);
    await second.close();
    expect(rowsOf(dir)).toEqual(imported.filter((r) => r.url !== "http://kely.example/"));
    // A file changed: the next start imports again.
    const changed = path.join(tmp, "changed");
    fs.cpSync(sourcesDir, changed, { recursive: true });
    fs.appendFileSync(path.join(changed, "legistar-sites-2021.csv"), "municipality,cityofely.legistar.com/Calendar.aspx,City of Ely,NV,United States,\n");
    const third = await startTestServer({ DATA_DIR: dir, TOWN_DIRECTORY_IMPORT: "start", TOWN_SOURCES_DIR: changed });
    expect(await importEnded(third)).toMatch(/^imported /);
    await third.close();
    const after = rowsOf(dir);
    expect(after.filter((r) => r.url === "http://kely.example/")).toHaveLength(1);
    expect(after.filter((r) => r.platform_id === "cityofely").map((r) => [r.place_geoid, r.scope, r.url])).toEqual([["3223500", "town", "https://cityofely.legistar.com/Calendar.aspx"]]);
    // `manual`: a new data directory starts without it.
    const manual = await startTestServer({ TOWN_DIRECTORY_IMPORT: "manual", TOWN_SOURCES_DIR: sourcesDir });
    await manual.close();
    expect(rowsOf(manual.dataDir)).toEqual([]);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(manual.dataDir, { recursive: true, force: true });
  });
});
