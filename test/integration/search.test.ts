import path from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RANK_WINDOW } from "../../src/contract/search.ts";
import { insertEdition } from "../../src/store/morning/editions.ts";
import { findPlaceBySlug } from "../../src/store/places/places.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
const geoid = (slug: string) => findPlaceBySlug(server.ctx.db, slug)!.geoid;

function store(slug: string, date: string, subject: string, markdown: string): void {
  insertEdition(server.ctx.db, { placeGeoid: geoid(slug), date, subject, markdown, html: "<p></p>", publishedAt: `${date}T11:00:00.000Z` });
}

const filler = (n: number) => "The town library is open and the council meets on Tuesday. ".repeat(n);

interface Result { slug: string; city: string; state: string; date: string; subject: string; snippet: string }
interface Body { query: string; results: Result[]; total: number }

async function search(params: Record<string, string>): Promise<Body> {
  const res = await server.get(`/api/search?${new URLSearchParams(params)}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Body;
}

async function problem(params: Record<string, string>, status: number) {
  const res = await server.get(`/api/search?${new URLSearchParams(params)}`);
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  return (await res.json()) as { code: string; detail: string; issues?: Array<{ path: string; message: string }> };
}

beforeAll(async () => {
  server = await startTestServer();
  // Ranking: a subject match with several mentions beats one mention; equal ones come newest first.
  store("springfield-illinois", "2026-11-01", "Parade day downtown", `# Parade\n\nThe parade starts at noon. After the parade, the parade floats park by the river.\n\n${filler(3)}`);
  store("springfield-illinois", "2026-11-05", "A quiet Thursday", `# Thursday\n\n${filler(3)} A parade permit was filed.`);
  store("tucson-arizona", "2026-11-03", "A quiet Tuesday", `# Thursday\n\n${filler(3)} A parade permit was filed.`);
  // Syntax.
  store("tucson-arizona", "2026-11-06", "Market news", `The **farmers market** opens at eight, with [fresh bread](https://example.com/bread).\n\nHeavy rain is expected.`);
  store("tucson-arizona", "2026-11-07", "More market news", "Farmers sell apples at the flea market. Snow is possible.");
  store("tucson-arizona", "2026-11-08", "Sunny", "Sunrise at 7:02, sunset at 17:30. Sunflowers bloom at the Café Olé.");
  // Hostile text must come back escaped.
  store("tucson-arizona", "2026-11-09", "Odd <b>subject</b>", `Someone wrote \`<script>alert("xss")</script>\` & 5 < 6 about the zeppelinfest.\n\n${filler(2)}`);
});

afterAll(async () => {
  await server?.stop();
});

describe("GET /api/search", () => {
  it("ranks by relevance, newest first among equals, and echoes the query", async () => {
    const body = await search({ q: "parade" });
    expect(body.query).toBe("parade");
    expect(body.total).toBe(3);
    expect(body.results.map((r) => [r.slug, r.date])).toEqual([
      ["springfield-illinois", "2026-11-01"],
      ["springfield-illinois", "2026-11-05"],
      ["tucson-arizona", "2026-11-03"],
    ]);
    expect(body.results[0]).toMatchObject({ city: "Springfield", state: "Illinois", subject: "Parade day downtown" });
  });

  it("answers under /api/v1 too, cacheably", async () => {
    const res = await server.get("/api/v1/search?q=parade");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toMatch(/public/);
    const etag = res.headers.get("etag")!;
    expect((await server.get("/api/v1/search?q=parade", { headers: { "If-None-Match": etag } })).status).toBe(304);
  });

  it("supports words, phrases, OR, exclusion and prefixes", async () => {
    const dates = async (q: string) => (await search({ q })).results.map((r) => r.date).sort();
    expect(await dates("farmers market")).toEqual(["2026-11-06", "2026-11-07"]);
    expect(await dates("\"farmers market\"")).toEqual(["2026-11-06"]);
    expect(await dates("rain OR snow")).toEqual(["2026-11-06", "2026-11-07"]);
    expect(await dates("market -rain")).toEqual(["2026-11-07"]);
    expect(await dates("market NOT \"heavy rain\"")).toEqual(["2026-11-07"]);
    expect(await dates("sun*")).toEqual(["2026-11-08"]);
    expect(await dates("\"farmers mar\"*")).toEqual(["2026-11-06"]);
    expect(await dates("cafe ole")).toEqual(["2026-11-08"]); // accents folded
    expect(await dates("bread")).toEqual(["2026-11-06"]); // link text is indexed ...
    expect(await dates("example")).toEqual([]); // ... its target is not
    expect(await dates("\"farmers market")).toEqual(["2026-11-06", "2026-11-07"]); // unclosed quote: words
  });

  it("returns a snippet with <mark> around matches and everything else escaped", async () => {
    const [hit] = (await search({ q: "zeppelinfest" })).results;
    expect(hit.snippet).toContain("<mark>zeppelinfest</mark>");
    expect(hit.snippet).toContain("&lt;script&gt;");
    expect(hit.snippet.replace(/<\/?mark>/g, "")).not.toMatch(/[<>]/);
    expect(hit.subject).toBe("Odd <b>subject</b>"); // JSON text, not HTML
    const [market] = (await search({ q: "\"farmers market\"" })).results;
    expect(market.snippet).toMatch(/<mark>farmers<\/mark> <mark>market<\/mark>|<mark>farmers market<\/mark>/);
    expect(market.snippet).not.toContain("**");
  });

  it("counts every match in total, not just the page", async () => {
    for (let d = 0; d < RANK_WINDOW + 30; d++) {
      store("tucson-arizona", new Date(Date.UTC(2025, 0, 1 + d)).toISOString().slice(0, 10), `Edition ${d}`, `The harvestmoon rises. ${filler(1)}`);
    }
    const first = await search({ q: "harvestmoon", limit: "5" });
    expect(first.results).toHaveLength(5);
    expect(first.total).toBe(RANK_WINDOW + 30);
    expect((await search({ q: "harvest*", limit: "50" })).results).toHaveLength(50);
    // A later morning adds editions: the total follows (and a repeated query stays exact).
    store("springfield-illinois", "2026-12-01", "Moonrise", "The harvestmoon again.");
    expect((await search({ q: "harvestmoon" })).total).toBe(RANK_WINDOW + 31);
    expect((await search({ q: "harvestmoon rises" })).total).toBe(RANK_WINDOW + 30);
    expect((await search({ q: "harvestmoon rises" })).total).toBe(RANK_WINDOW + 30);
    // Deleting an edition is rare, but totals stay exact.
    server.ctx.db.prepare("DELETE FROM editions WHERE date = '2025-01-01' AND subject = 'Edition 0'").run();
    expect((await search({ q: "harvestmoon rises" })).total).toBe(RANK_WINDOW + 29);
    expect((await search({ q: "harvestmoon" })).total).toBe(RANK_WINDOW + 30);
  });

  it("restricts to one city with slug", async () => {
    const body = await search({ q: "parade", slug: "tucson-arizona" });
    expect(body.total).toBe(1);
    expect(body.results.map((r) => r.slug)).toEqual(["tucson-arizona"]);
    expect((await search({ q: "harvestmoon", slug: "springfield-illinois" })).total).toBe(1);
  });

  it("validates q, limit and slug", async () => {
    for (const [params, field] of [
      [{}, "q"], [{ q: "a" }, "q"], [{ q: "x".repeat(201) }, "q"],
      [{ q: "parade", limit: "0" }, "limit"], [{ q: "parade", limit: "51" }, "limit"], [{ q: "parade", limit: "ten" }, "limit"],
      [{ q: "parade", slug: "Not A Slug" }, "slug"],
    ] as Array<[Record<string, string>, string]>) {
      const p = await problem(params, 400);
      expect(p.code).toBe("validation_error");
      expect(p.issues?.map((i) => i.path)).toContain(field);
    }
    expect((await problem({ q: "parade", slug: "atlantis-kansas" }, 404)).code).toBe("city_not_found");
    expect((await search({ q: "x".repeat(200) })).total).toBe(0);
    expect((await search({ q: "parade", limit: "1" })).results).toHaveLength(1);
  });

  it("explains malformed syntax instead of failing", async () => {
    for (const [q, message] of [["-rain", /only excludes/], ["s* x", /at least 2/], ["!!! ???", /no words/]] as const) {
      const p = await problem({ q }, 400);
      expect(p.code).toBe("validation_error");
      expect(p.issues).toEqual([{ path: "q", message: expect.stringMatching(message) }]);
    }
    for (const q of ["\"", "((rain", "rain)) OR", "NEAR(a b)", "subject:rain", "{body}: x", "*rain", "rain^2", "'; DROP TABLE editions; --", "a\u0000b"]) {
      const res = await server.get(`/api/search?${new URLSearchParams({ q })}`);
      expect([200, 400], q).toContain(res.status);
    }
  });

  it("never shows half a morning while the pipeline stores one", async () => {
    const slugs = ["boston-massachusetts", "denver-colorado", "austin-texas", "portland-oregon", "miami-florida"];
    const geoids = slugs.map(geoid);
    const worker = new Worker(path.resolve(import.meta.dirname, "../helpers/search-morning-writer.ts"), {
      workerData: { file: path.join(server.dataDir, "citydaily.db"), geoids, mornings: 60, word: "zeppelin" },
    });
    const done = new Promise((resolve, reject) => { worker.once("message", resolve); worker.once("error", reject); });
    let finished = false;
    void done.then(() => { finished = true; });
    const seen = new Set<number>();
    while (!finished) {
      const body = await search({ q: "zeppelin flies", limit: "50" });
      expect(body.total % geoids.length).toBe(0);
      expect(body.results).toHaveLength(Math.min(50, body.total));
      seen.add(body.total);
    }
    await done;
    expect((await search({ q: "zeppelin flies" })).total).toBe(60 * geoids.length);
    expect(seen.size).toBeGreaterThan(1);
  });

  it("is described in the OpenAPI document with its syntax", async () => {
    const doc = await (await server.get("/openapi.json")).json() as { paths: Record<string, { get?: { description?: string } }> };
    const description = doc.paths["/api/search"]?.get?.description ?? "";
    for (const form of ["\"partly cloudy\"", "OR", "-rain", "sun*"]) expect(description).toContain(form);
  });
});

describe("snippets come from their own edition", () => {
  // Each city's edition names the city next to every searched term, so a snippet taken from
  // another edition names the wrong city.
  const towns = [
    ["denver-colorado", "Denver"], ["anchorage-alaska", "Anchorage"], ["honolulu-hawaii", "Honolulu"], ["phoenix-arizona", "Phoenix"],
  ] as const;
  const text = (town: string) =>
    `${filler(2)} In ${town} the daybreak glow comes early and ${town} residents watch the lanterns over ${town} harbor. ${filler(2)}`;
  const textOf = new Map<string, string>();

  beforeAll(() => {
    towns.forEach(([slug, town], i) => {
      const markdown = text(town);
      store(slug, `2026-10-0${i + 1}`, `${town} morning`, markdown);
      textOf.set(slug, markdown);
    });
  });

  const plain = (snippet: string) => snippet.replace(/<\/?mark>/g, "").replace(/…/g, "").replace(/&amp;/g, "&").trim();

  for (const q of ["daybreak", "\"daybreak glow\"", "lanter*", "lanterns OR zeppelinfest", "residents -parade"]) {
    it(`q=${q}: every result's snippet is a passage of that result's edition`, async () => {
      const body = await search({ q, limit: "10" });
      const ours = body.results.filter((r) => textOf.has(r.slug));
      expect(ours).toHaveLength(towns.length);
      for (const r of ours) {
        const town = towns.find(([slug]) => slug === r.slug)![1];
        expect(r.snippet, `${r.slug}: ${r.snippet}`).toContain(town);
        for (const other of towns.filter(([, t]) => t !== town)) expect(r.snippet).not.toContain(other[1]);
        expect(textOf.get(r.slug)).toContain(plain(r.snippet).split(/\s+/).slice(0, 4).join(" "));
      }
    });
  }

  it("with a city filter, the snippet is that city's", async () => {
    const body = await search({ q: "harbor", slug: "honolulu-hawaii" });
    expect(body.results).toHaveLength(1);
    expect(body.results[0].snippet).toContain("Honolulu");
    expect(body.results[0].snippet).toContain("<mark>harbor</mark>");
  });
});
