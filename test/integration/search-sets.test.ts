import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSearchQuery } from "../../src/core/search/query.ts";
import type { DB } from "../../src/store/db.ts";
import { newestIndexedId, searchBitsUpto } from "../../src/store/search/bits.ts";
import { placeToken } from "../../src/store/search/queries.ts";
import { refreshSearchSets } from "../../src/services/site/search.ts";
import { addEdition, geoidOf } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// The exact `total` comes from kept sets of frequent terms (src/store/search/bits.ts). These tests
// check it against FTS5's own count(*) over an archive big enough for terms to get sets, through
// every state the sets can be in: not built yet, built, behind newer editions, and invalidated by
// an edit or a delete.

const CITIES = ["springfield-illinois", "tucson-arizona", "boston-massachusetts", "chicago-illinois", "canon-city-colorado", "seattle-washington"];
const COMMON = ["weather", "council", "library", "market", "parade", "school", "river", "garden", "concert", "budget"];
const RARE = ["zeppelin", "quokka", "marzipan", "kazoo", "origami", "yodel", "gazebo", "sorbet"];

function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => ((a = (Math.imul(a ^ (a >>> 15), 2246822519) + 0x9e3779b9) >>> 0) / 4294967296);
}

function editionText(r: () => number, n: number): { subject: string; body: string } {
  const pick = <T>(list: T[]) => list[Math.floor(r() * list.length)];
  const words = Array.from({ length: 40 }, () => (r() < 0.08 ? pick(RARE) : pick(COMMON)));
  const extras = [
    r() < 0.6 ? "Partly cloudy, with a chance of rain." : "Clear skies and a cold night.",
    r() < 0.3 ? "The farmers market opens at the Café Olé." : "",
    r() < 0.2 ? "Straße fair at the rïver." : "",
    r() < 0.25 ? "A rainy afternoon." : "",
    n % 7 === 0 ? "Cañon news." : "",
  ];
  return { subject: `${pick(COMMON)} and ${pick(COMMON)} news`, body: `${words.join(" ")}. ${extras.join(" ")}` };
}

const QUERIES = [
  "weather", "council library", "market OR parade", "weather -zeppelin", "school -river -garden",
  "\"partly cloudy\"", "\"chance of rain\"", "\"farmers market opens\"", "lib*", "co*", "we* -cloudy",
  "zeppelin", "quokka OR kazoo", "cafe", "café", "Café Olé", "strasse", "straße", "canon", "cañon", "WEATHER Council",
  "\"cloudy with\"", "rain*", "rainy", "nothingmatches", "weather nothingmatches",
];

let server: TestServer;
const db = (): DB => server.ctx.db;
let dataDir: string;
let n = 0;
const r = random(11);

function seed(count: number): void {
  for (let i = 0; i < count; i++, n++) {
    const { subject, body } = editionText(r, n);
    const date = new Date(Date.UTC(2024, 0, 1) + Math.floor(n / CITIES.length) * 86_400_000).toISOString().slice(0, 10);
    addEdition(db(), CITIES[n % CITIES.length], date, subject, body);
  }
}

/** FTS5's own count of what a query matches: the oracle. */
function ftsCount(q: string, slug?: string): number {
  const parsed = parseSearchQuery(q);
  if (!parsed.ok) throw new Error(parsed.message);
  const text = `(${parsed.query.expression})`;
  const match = slug === undefined ? text : `place : "${placeToken(geoidOf(db(), slug))}" AND ${text}`;
  return Number(db().prepare("SELECT count(*) FROM edition_search WHERE edition_search MATCH ?").pluck().get(match));
}

async function apiTotal(q: string, slug?: string): Promise<number> {
  const res = await server.get(`/api/search?${new URLSearchParams({ q, ...(slug ? { slug } : {}) })}`);
  expect(res.status, q).toBe(200);
  return ((await res.json()) as { total: number }).total;
}

async function expectTotalsMatchFts(): Promise<void> {
  for (const q of QUERIES) expect(await apiTotal(q), q).toBe(ftsCount(q));
  for (const q of ["weather", "market OR parade", "\"partly cloudy\"", "co*"]) {
    expect(await apiTotal(q, "tucson-arizona"), `${q} in Tucson`).toBe(ftsCount(q, "tucson-arizona"));
  }
}

beforeAll(async () => {
  server = await startTestServer();
  dataDir = server.dataDir;
  seed(660);
});

afterAll(async () => {
  await server?.stop();
});

describe("exact totals from the kept sets", () => {
  it("before the sets are built, totals come from FTS5 and are exact", async () => {
    expect(searchBitsUpto(db())).toBe(0);
    await expectTotalsMatchFts();
    expect(ftsCount("weather")).toBeGreaterThan(600);
    expect(ftsCount("cafe")).toBeGreaterThan(100); // "Café" folds to "cafe"
  });

  it("a server started on an archive builds the sets in the background, and totals stay exact", async () => {
    await server.close(); // keep the data directory
    server = await startTestServer({ DATA_DIR: dataDir });
    const deadline = Date.now() + 20_000;
    while (searchBitsUpto(db()) < newestIndexedId(db()) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
    expect(searchBitsUpto(db())).toBe(newestIndexedId(db()));
    const keys = db().prepare("SELECT key FROM search_keys").pluck().all() as string[];
    // Frequent words, phrases and prefixes got sets; words in under 3% of editions did not.
    expect(keys).toEqual(expect.arrayContaining(['"weather"', '"partly cloudy"', '"chance of rain"', '"lib"*', '"co"*', '"rain"*', '"cafe"', '"canon"']));
    expect(keys).not.toContain('"nothingmatches"');
    await expectTotalsMatchFts();
  });

  it("editions stored since the last refresh are counted too, and the next refresh takes them in", async () => {
    seed(45);
    expect(searchBitsUpto(db())).toBeLessThan(newestIndexedId(db()));
    await expectTotalsMatchFts();
    const refreshed = await refreshSearchSets(server.ctx);
    expect(refreshed.editions).toBe(45);
    expect(searchBitsUpto(db())).toBe(newestIndexedId(db()));
    await expectTotalsMatchFts();
    expect((await refreshSearchSets(server.ctx)).editions).toBe(0);
  });

  it("an edited or deleted edition lowers the watermark, and totals stay exact before and after the rebuild", async () => {
    const [a, b] = db().prepare("SELECT id FROM editions WHERE markdown LIKE '%weather%' ORDER BY id LIMIT 2 OFFSET 40").pluck().all() as number[];
    db().prepare("DELETE FROM editions WHERE id = ?").run(a);
    db().prepare("UPDATE editions SET markdown = 'Nothing but zeppelin news and a farmers market.' WHERE id = ?").run(b);
    expect(searchBitsUpto(db())).toBe(a - 1);
    await expectTotalsMatchFts();
    await refreshSearchSets(server.ctx);
    expect(searchBitsUpto(db())).toBe(newestIndexedId(db()));
    await expectTotalsMatchFts();
    expect(fs.existsSync(dataDir)).toBe(true);
  });

  it("ranks the newest matches from the sets: a rare word's editions, newest first among equals", async () => {
    const res = await server.get(`/api/search?${new URLSearchParams({ q: "quokka", limit: "50" })}`);
    const body = (await res.json()) as { total: number; results: Array<{ date: string; snippet: string }> };
    expect(body.total).toBe(ftsCount("quokka"));
    expect(body.results.length).toBe(Math.min(50, body.total));
    for (const hit of body.results) expect(hit.snippet.toLowerCase()).toContain("<mark>quokka</mark>");
  });
});
