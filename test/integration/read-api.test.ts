import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Problem } from "../../src/contract/problems.ts";
import { CensusCitiesResponse, CitiesResponse, CityResponse, ArchiveResponse, FactsDataset } from "../../src/contract/resources.ts";
import { addEdition, addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  const db = server.ctx.db;
  addSubscriber(db, "st-louis-missouri", "a@example.org");
  addSubscriber(db, "canon-city-colorado", "b@example.org");
  addSubscriber(db, "honolulu-hawaii", "c@example.org", "unsubscribed"); // not a city: no active subscriber, no edition
  addEdition(db, "boise-idaho", "2026-11-20", "Frost tonight in Boise"); // a city by its edition alone
  addEdition(db, "st-louis-missouri", "2026-11-20", "Rain moves in");
  addEdition(db, "st-louis-missouri", "2026-11-21", "Clear and cold");
  addEdition(db, "st-louis-missouri", "2026-11-19", "A mild Thursday");
});
afterAll(() => server.stop());

async function expectProblem(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  expect(res.headers.get("api-version")).toBe("v1");
  expect(res.headers.get("access-control-allow-origin")).toBe("*");
  const body = await res.json();
  const problem = Problem.parse(body);
  expect(problem.code).toBe(code);
  expect(problem.status).toBe(status);
  expect(problem.error).toBe(problem.detail);
  expect(problem.type).toBe(`${server.url}/developers#error-${code}`);
  expect(problem.documentation).toBe(`${server.url}/developers#error-${code}`);
  expect(problem.instance).toBe(new URL(res.url).pathname);
  if (code === "validation_error") expect(problem.issues?.length).toBeGreaterThan(0);
  else expect(body).not.toHaveProperty("issues");
  return problem;
}

describe("GET /api/cities", () => {
  it("lists cities with an active subscriber or a published edition, grouped by state", async () => {
    const res = await server.get("/api/cities");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = CitiesResponse.parse(await res.json());
    expect(body.states.map((s) => s.state)).toEqual(["Colorado", "Idaho", "Missouri"]);
    expect(body.states[0].cities).toEqual([{ city: "Cañon City", slug: "canon-city-colorado" }]);
    expect(body.totalCities).toBe(3);
    expect(JSON.stringify(body)).not.toContain("honolulu");
  });

  it("is cached an hour at the edge, with a strong ETag that answers 304", async () => {
    const res = await server.get("/api/cities");
    expect(res.headers.get("cache-control")).toContain("s-maxage=3600");
    const etag = res.headers.get("etag")!;
    expect(etag).toMatch(/^"[^"]+"$/);
    const again = await server.get("/api/cities", { headers: { "If-None-Match": etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect(await again.text()).toBe("");
    const weak = await server.get("/api/cities", { headers: { "If-None-Match": `"other", W/${etag}` } });
    expect(weak.status).toBe(304);
    const stale = await server.get("/api/cities", { headers: { "If-None-Match": '"stale"' } });
    expect(stale.status).toBe(200);
  });

  it("changes (and its ETag with it) when a place gets its first subscriber", async () => {
    const before = await server.get("/api/cities");
    addSubscriber(server.ctx.db, "cheyenne-wyoming", "d@example.org");
    const after = await server.get("/api/cities", { headers: { "If-None-Match": before.headers.get("etag")! } });
    expect(after.status).toBe(200);
    const body = CitiesResponse.parse(await after.json());
    expect(body.states.at(-1)).toEqual({ state: "Wyoming", cities: [{ city: "Cheyenne", slug: "cheyenne-wyoming" }] });
  });
});

describe("GET /api/cities-census", () => {
  it("defaults to places of 5000+ people, states alphabetical, cities largest first", async () => {
    const body = CensusCitiesResponse.parse(await (await server.get("/api/cities-census")).json());
    expect(body.minPopulation).toBe(5000);
    const states = body.states.map((s) => s.state);
    expect(states).toEqual([...states].sort());
    expect(states).toContain("Puerto Rico");
    let total = 0;
    for (const g of body.states) {
      expect(g.cityCount).toBe(g.cities.length);
      expect(g.totalPopulation).toBe(g.cities.reduce((n, c) => n + c.population, 0));
      const pops = g.cities.map((c) => c.population);
      expect(pops).toEqual([...pops].sort((a, b) => b - a));
      expect(Math.min(...pops)).toBeGreaterThanOrEqual(5000);
      total += g.cityCount;
    }
    expect(body.totalCities).toBe(total);
    const stl = body.states.find((s) => s.state === "Missouri")!.cities.find((c) => c.slug === "st-louis-missouri")!;
    expect(stl).toEqual({ city: "St. Louis", slug: "st-louis-missouri", population: 293109, hasSubscribers: true });
  });

  it("filters by state (full name, any case), minPopulation and hasSubscribers", async () => {
    const hi = CensusCitiesResponse.parse(await (await server.get("/api/cities-census?state=hawaii&minPopulation=40000")).json());
    expect(hi.states).toHaveLength(1);
    expect(hi.states[0].state).toBe("Hawaii");
    expect(hi.states[0].cities[0]).toMatchObject({ city: "Honolulu", population: 346323, hasSubscribers: false });
    expect(hi.states[0].cities.every((c) => c.population >= 40000)).toBe(true);

    const subs = CensusCitiesResponse.parse(await (await server.get("/api/cities-census?hasSubscribers=true&minPopulation=1000")).json());
    expect(subs.states.flatMap((s) => s.cities.map((c) => c.slug)).sort()).toEqual(["canon-city-colorado", "cheyenne-wyoming", "st-louis-missouri"]);

    const none = CensusCitiesResponse.parse(await (await server.get("/api/cities-census?state=Missouri&hasSubscribers=false")).json());
    expect(none.states[0].cities.some((c) => c.slug === "st-louis-missouri")).toBe(false);
  });

  it.each([
    ["minPopulation=999", "minPopulation"],
    ["minPopulation=abc", "minPopulation"],
    ["minPopulation=5000.5", "minPopulation"],
    ["state=Ontario", "state"],
    ["state=" + "x".repeat(61), "state"],
    ["hasSubscribers=maybe", "hasSubscribers"],
  ])("rejects %s with validation_error naming the parameter", async (query, field) => {
    const problem = await expectProblem(await server.get(`/api/cities-census?${query}`), 400, "validation_error");
    expect(problem.issues!.map((i) => i.path)).toContain(field);
  });
});

describe("GET /api/city/{slug}", () => {
  it("returns the city with archives newest first, census figures and empty listings", async () => {
    const res = await server.get("/api/city/st-louis-missouri");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toMatch(/public/);
    const body = CityResponse.parse(await res.json());
    expect(body).toMatchObject({ slug: "st-louis-missouri", city: "St. Louis", state: "Missouri", subscriberCount: 1 });
    expect(body.archives).toEqual([
      { date: "2026-11-21", subject: "Clear and cold" },
      { date: "2026-11-20", subject: "Rain moves in" },
      { date: "2026-11-19", subject: "A mild Thursday" },
    ]);
    expect(body.census).toMatchObject({ population: 293109, year: "2023", medianIncome: null, medianAge: null });
    expect(body.events).toEqual([]);
    expect(body.directory).toEqual([]);
  });

  it("knows a city by its editions alone", async () => {
    const body = CityResponse.parse(await (await server.get("/api/city/boise-idaho")).json());
    expect(body.subscriberCount).toBe(0);
    expect(body.archives).toHaveLength(1);
  });

  it.each([
    ["/api/city/springfield", 400, "invalid_slug"],
    ["/api/city/St-Louis-Missouri", 400, "invalid_slug"],
    ["/api/city/st%20louis-missouri", 400, "invalid_slug"],
    ["/api/city/ca%C3%B1on-city-colorado", 400, "invalid_slug"],
    ["/api/city/" + "a-".repeat(80) + "ohio", 400, "invalid_slug"],
    ["/api/city", 400, "missing_slug"],
    ["/api/city/", 400, "missing_slug"],
    ["/api/city/atlantis-ohio", 404, "city_not_found"],
    ["/api/city/honolulu-hawaii", 404, "city_not_found"],
  ])("%s -> %i %s", async (path, status, code) => {
    const problem = await expectProblem(await server.get(path), status, code);
    if (code === "city_not_found") expect(problem.resolution).toContain("/api/cities");
  });

  it("says a real place without a newsletter can be started by subscribing", async () => {
    const problem = await expectProblem(await server.get("/api/city/honolulu-hawaii"), 404, "city_not_found");
    expect(problem.detail).toContain("Honolulu, Hawaii");
    expect(problem.detail).toMatch(/subscrib/);
  });
});

describe("GET /api/facts/{slug}", () => {
  it("is a schema.org Dataset with units, vintage and the figures that are not available yet", async () => {
    const res = await server.get("/api/facts/st-louis-missouri");
    expect(res.status).toBe(200);
    const body = FactsDataset.parse(await res.json()) as Record<string, any>;
    expect(body["@type"]).toBe("Dataset");
    expect(body.url).toBe(`${server.url}/st-louis-missouri`);
    const population = body.variableMeasured.find((v: any) => v.propertyID === "population");
    expect(population).toMatchObject({ value: 293109, unitText: "people" });
    expect(population.description).toContain("2023");
    expect(body.variableMeasured.some((v: any) => v.propertyID === "medianIncome")).toBe(false);
    expect(body.unavailableVariables).toContain("medianIncome");
    expect(body.description).toContain("Not available yet");
    expect(body.temporalCoverage).toBe("2019/2023");
    expect(body.about).toMatchObject({ "@type": "Periodical", numberOfSubscribers: 1, dateModified: "2026-11-21" });
    expect(body.spatialCoverage.geo).toMatchObject({ latitude: expect.any(Number), longitude: expect.any(Number) });
  });

  it("answers the same slug errors as the city endpoint", async () => {
    await expectProblem(await server.get("/api/facts/nowhere"), 400, "invalid_slug");
    await expectProblem(await server.get("/api/facts"), 400, "missing_slug");
    await expectProblem(await server.get("/api/facts/atlantis-ohio"), 404, "city_not_found");
  });
});

describe("GET /api/archive/{slug}/{date}", () => {
  it("returns the edition as JSON", async () => {
    const res = await server.get("/api/archive/st-louis-missouri/2026-11-20");
    expect(res.status).toBe(200);
    const body = ArchiveResponse.parse(await res.json());
    expect(body).toEqual({ date: "2026-11-20", subject: "Rain moves in", html: expect.stringContaining("<h1>Rain moves in</h1>") });
    expect(res.headers.get("etag")).toBeTruthy();
  });

  it("returns the markdown twin with .md", async () => {
    const res = await server.get("/api/archive/st-louis-missouri/2026-11-20.md");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    const text = await res.text();
    expect(text).toContain("# Rain moves in");
    expect(Number(res.headers.get("x-markdown-tokens"))).toBeGreaterThan(0);
  });

  it.each([
    ["/api/archive/st-louis-missouri/2026-11-22", 404, "edition_not_found"],
    ["/api/archive/st-louis-missouri/2026-11-22.md", 404, "edition_not_found"],
    ["/api/archive/st-louis-missouri/2026-02-30", 400, "validation_error"],
    ["/api/archive/st-louis-missouri/yesterday", 400, "validation_error"],
    ["/api/archive/atlantis-ohio/2026-11-20", 404, "city_not_found"],
    ["/api/archive/honolulu-hawaii/2026-11-20", 404, "city_not_found"],
    ["/api/archive/Boise/2026-11-20", 400, "invalid_slug"],
    ["/api/archive", 400, "missing_slug"],
  ])("%s -> %i %s", async (path, status, code) => {
    await expectProblem(await server.get(path), status, code);
  });
});

describe("the API as a whole", () => {
  const reads = [
    "/api/cities", "/api/cities-census?state=Idaho", "/api/city/st-louis-missouri", "/api/facts/boise-idaho",
    "/api/archive/st-louis-missouri/2026-11-21", "/api/archive/st-louis-missouri/2026-11-21.md",
    "/api/city/nowhere", "/api/nope",
  ];

  it.each(reads)("/api/v1 answers %s exactly like /api", async (path) => {
    const [a, b] = await Promise.all([server.get(path), server.get(path.replace("/api/", "/api/v1/"))]);
    expect(b.status).toBe(a.status);
    expect(b.headers.get("content-type")).toBe(a.headers.get("content-type"));
    expect(b.headers.get("api-version")).toBe("v1");
    const [ta, tb] = [await a.text(), await b.text()];
    expect(tb.replaceAll("/api/v1/", "/api/")).toBe(ta);
  });

  it.each(reads)("%s carries API-Version and open CORS", async (path) => {
    const res = await server.get(path);
    expect(res.headers.get("api-version")).toBe("v1");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  it("answers unrouted paths with endpoint_not_found", async () => {
    await expectProblem(await server.get("/api/nope"), 404, "endpoint_not_found");
    await expectProblem(await server.get("/api/v1/city/st-louis-missouri/extra"), 404, "endpoint_not_found");
    await expectProblem(await server.get("/api/v2/cities"), 404, "endpoint_not_found");
  });

  it("answers a wrong method with 405 and Allow", async () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
      const res = await server.get("/api/city/st-louis-missouri", { method });
      await expectProblem(res, 405, "method_not_allowed");
      expect(res.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    }
  });

  it("answers CORS preflight", async () => {
    const res = await server.get("/api/cities", {
      method: "OPTIONS",
      headers: { Origin: "https://example.org", "Access-Control-Request-Method": "GET" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toContain("GET");
    expect(res.headers.get("api-version")).toBe("v1");
  });

  it("answers HEAD like GET without a body", async () => {
    const res = await server.get("/api/city/st-louis-missouri", { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBeTruthy();
    expect(await res.text()).toBe("");
  });

  it("keeps a caller's request id and echoes it", async () => {
    const res = await server.get("/api/cities", { headers: { "X-Request-Id": "trace-123" } });
    expect(res.headers.get("x-request-id")).toBe("trace-123");
  });

  it("serves an OpenAPI 3.1 description generated from the contract", async () => {
    const res = await server.get("/openapi.json");
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/api/cities", "/api/cities-census", "/api/city/{slug}", "/api/facts/{slug}", "/api/archive/{slug}/{date}"]));
    expect(doc.components.schemas).toHaveProperty("Problem");
    expect(doc.paths["/api/city/{slug}"].get.responses["404"].content).toHaveProperty("application/problem+json");
  });

  it("never answers a 500 to odd input, and never leaks internals when something does fail", async () => {
    for (const path of ["/api/city/%00", "/api/city/%ZZ", "/api/cities-census?minPopulation=1e400", "/api/archive/x/%2e%2e", "/api/city/" + "é".repeat(500)]) {
      const res = await server.get(path);
      expect(res.status, path).toBeLessThan(500);
      expect(res.headers.get("content-type"), path).toBe("application/problem+json");
    }
  });
});

describe("an unexpected failure", () => {
  it("is a 500 internal_error with no stack trace or internal detail", async () => {
    const broken = await startTestServer();
    broken.ctx.db.close(); // every query now throws inside better-sqlite3
    const res = await broken.get("/api/cities");
    const problem = await expectProblemOn(broken, res, 500, "internal_error");
    expect(JSON.stringify(problem)).not.toMatch(/sqlite|database|at \w+ \(|\.ts:/i);
    await broken.close().catch(() => undefined);
  });
});

async function expectProblemOn(s: TestServer, res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  const p = Problem.parse(await res.json());
  expect(p.code).toBe(code);
  expect(p.type).toBe(`${s.url}/developers#error-${code}`);
  return p;
}
