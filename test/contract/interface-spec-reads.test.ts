import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EARLY_TOWN, TODAY, TOWN, expectFields, expectProblem, jsonOf, startSpecServer, type SpecServer } from "./spec-server.ts";

// The interface spec (/work/shared/spec/service-interface.md), kept whole: every read of section 4
// sent exactly as the spec documents it, its answer checked against section 2's field tables, and
// sections 7 (errors) and 9 (versioning). A change that breaks a documented shape fails here first;
// each test names the section it pins. Writes: interface-spec-writes; MCP and discovery: interface-spec-mcp.

let spec: SpecServer;
const get = (path: string, init?: RequestInit) => spec.server.get(path, init);

beforeAll(async () => {
  spec = await startSpecServer({ morning: true });
}, 120_000);
afterAll(async () => {
  await spec?.stop();
});

const CITY_RESPONSE = { slug: "string", city: "string", state: "string", subscriberCount: "integer", archives: "array", census: "object|null?" };
const CENSUS_INTEGERS = ["population", "medianIncome", "medianHomeValue", "medianRent", "ownerOccupied", "renterOccupied"];
const CENSUS_NUMBERS = ["collegeDegreePercent", "avgCommuteMinutes", "workFromHomePercent", "walkBikeTransitPercent", "medianAge", "over65Percent", "vacancyRate"];
const WEATHER = {
  high: "number", low: "number", current: "number", code: "integer", condition: "string", emoji: "string",
  precipitationChance: "number|null?", windSpeed: "number|null?", latitude: "number?", longitude: "number?", timezone: "string?", asOf: "string?",
};
const QUOTE = { slug: "string", available: "boolean", subscribers: "integer", tier: "integer", priceCents: "integer", subscribersToNextTier: "integer", nextTierPriceCents: "integer" };

describe("§4 Reads", () => {
  it("§4 Reads: GET /api/cities answers CitiesResponse (§2 StateGroup, CityRef), cached 1 hour at the edge", async () => {
    const res = await get("/api/cities");
    expect(res.headers.get("cache-control")).toMatch(/s-maxage=3600\b/);
    const body = await jsonOf(res);
    expectFields(body, { states: "array", totalCities: "integer" }, "CitiesResponse");
    for (const g of body.states) {
      expectFields(g, { state: "string", cities: "array" }, "StateGroup");
      for (const c of g.cities) expectFields(c, { city: "string", slug: "string" }, "CityRef");
    }
    expect(body.states.flatMap((g: any) => g.cities.map((c: any) => c.slug))).toContain(TOWN.slug);
    expect(body.totalCities).toBe(body.states.reduce((n: number, g: any) => n + g.cities.length, 0));
  });

  it("§4 Reads: GET /api/cities-census takes minPopulation (at least 1000, default 5000) and state (§2 CensusCitiesResponse)", async () => {
    const body = await jsonOf(await get("/api/cities-census?minPopulation=200000&state=Idaho"));
    expectFields(body, { states: "array", totalCities: "integer", minPopulation: "integer" }, "CensusCitiesResponse");
    expect(body.minPopulation).toBe(200000);
    expect(body.states.map((g: any) => g.state)).toEqual(["Idaho"]);
    for (const g of body.states) {
      expectFields(g, { state: "string", cityCount: "integer", totalPopulation: "integer", cities: "array" }, "CensusStateGroup");
      for (const c of g.cities) {
        expectFields(c, { city: "string", slug: "string", population: "integer", hasSubscribers: "boolean" }, "CensusCity");
        expect(c.population).toBeGreaterThanOrEqual(200000);
      }
    }
    expect(body.states[0].cities.find((c: any) => c.slug === TOWN.slug)).toMatchObject({ hasSubscribers: true });
    expect((await jsonOf(await get("/api/cities-census"))).minPopulation).toBe(5000);
    await expectProblem(await get("/api/cities-census?minPopulation=999"), 400, "validation_error", "/api/cities-census");
  });

  it("§4 Reads: GET /api/city/{slug} answers CityResponse (§2, with Census); 404 city_not_found, 400 invalid_slug and missing_slug", async () => {
    const body = await jsonOf(await get(`/api/city/${TOWN.slug}`));
    expectFields(body, CITY_RESPONSE, "CityResponse");
    expect(body).toMatchObject(TOWN);
    expect(body.subscriberCount).toBeGreaterThanOrEqual(1);
    expect(body.archives.map((a: any) => a.date)).toContain(TODAY);
    for (const a of body.archives) expectFields(a, { date: "date", subject: "string" }, "archives[]");
    const census = Object.fromEntries([...CENSUS_INTEGERS.map((k) => [k, "integer|null?"]), ...CENSUS_NUMBERS.map((k) => [k, "number|null?"]), ["year", "string?"]]);
    expectFields(body.census, census, "Census");
    await expectProblem(await get("/api/city/atlantis-idaho"), 404, "city_not_found", "/api/city/atlantis-idaho");
    await expectProblem(await get("/api/city/Boise_Idaho!"), 400, "invalid_slug", "/api/city/Boise_Idaho!");
    await expectProblem(await get("/api/city/"), 400, "missing_slug", "/api/city/");
  });

  it("§4 Reads: GET /api/facts/{slug} answers a schema.org Dataset; 404 city_not_found", async () => {
    const body = await jsonOf(await get(`/api/facts/${TOWN.slug}`));
    expect(body["@type"]).toBe("Dataset");
    expect(body["@context"]).toMatch(/schema\.org/);
    await expectProblem(await get("/api/facts/atlantis-idaho"), 404, "city_not_found", "/api/facts/atlantis-idaho");
  });

  it("§4 Reads: GET /api/weather/{slug} answers WeatherResponse (the edition's snapshot, else a live fetch); 404 city_not_found and weather_unavailable", async () => {
    const stored = await jsonOf(await get(`/api/weather/${TOWN.slug}`));
    expectFields(stored, WEATHER, "WeatherResponse");
    // A town with no edition today has no snapshot: with the provider down, neither is available.
    spec.meteo.setMode("error");
    try {
      await expectProblem(await get(`/api/weather/${EARLY_TOWN}`), 404, "weather_unavailable", `/api/weather/${EARLY_TOWN}`);
      expect((await get(`/api/weather/${TOWN.slug}`)).status).toBe(200);
    } finally {
      spec.meteo.setMode("ok");
    }
    expectFields(await jsonOf(await get(`/api/weather/${EARLY_TOWN}`)), WEATHER, "WeatherResponse (live)");
    await expectProblem(await get("/api/weather/atlantis-idaho"), 404, "city_not_found", "/api/weather/atlantis-idaho");
  });

  it("§4 Reads: GET /api/archive/{slug}/{date} answers ArchiveResponse, markdown with .md; 404 edition_not_found (today's before publication, §7 rule 3) and city_not_found", async () => {
    const body = await jsonOf(await get(`/api/archive/${TOWN.slug}/${TODAY}`));
    expectFields(body, { html: "string", subject: "string", date: "date" }, "ArchiveResponse");
    expect(body.date).toBe(TODAY);
    const md = await get(`/api/archive/${TOWN.slug}/${TODAY}.md`);
    expect(md.status).toBe(200);
    expect(md.headers.get("content-type")).toMatch(/^text\/markdown/);
    expect(await md.text()).toMatch(/^# /);
    // Honolulu's morning has not come: today's edition does not exist, and yesterday is not served instead.
    await expectProblem(await get(`/api/archive/${EARLY_TOWN}/${TODAY}`), 404, "edition_not_found", `/api/archive/${EARLY_TOWN}/${TODAY}`);
    const yesterday = new Date(Date.parse(TODAY) - 86_400_000).toISOString().slice(0, 10);
    await expectProblem(await get(`/api/archive/${TOWN.slug}/${yesterday}`), 404, "edition_not_found");
    await expectProblem(await get(`/api/archive/atlantis-idaho/${TODAY}`), 404, "city_not_found");
  });

  it("§4 Reads: GET /api/search takes q (2 to 200 characters), limit (1 to 50) and slug (§2 SearchResponse); 400 validation_error with issues", async () => {
    const body = await jsonOf(await get(`/api/search?q=${encodeURIComponent("boise")}&limit=5&slug=${TOWN.slug}`));
    expectFields(body, { query: "string", results: "array", total: "integer" }, "SearchResponse");
    expect(body.query).toBe("boise");
    expect(body.results.length).toBeGreaterThanOrEqual(1);
    for (const r of body.results) {
      expectFields(r, { slug: "string", city: "string", state: "string", date: "date", subject: "string", snippet: "string" }, "SearchResult");
      expect(r.slug).toBe(TOWN.slug);
    }
    expect(body.results[0].snippet).toMatch(/<mark>[^<]+<\/mark>/);
    expect((await jsonOf(await get("/api/search?q=boise"))).total).toBe(body.total);
    expect((await jsonOf(await get(`/api/search?q=boise&slug=${EARLY_TOWN}`))).results).toEqual([]);
    for (const [query, path] of [["", "q"], ["?q=b", "q"], [`?q=${"b".repeat(201)}`, "q"], ["?q=boise&limit=0", "limit"], ["?q=boise&limit=51", "limit"]]) {
      const p = await expectProblem(await get(`/api/search${query}`), 400, "validation_error", "/api/search");
      expect(p.issues.map((i: any) => i.path), query).toContain(path);
    }
  });

  it("§4 Reads: GET /api/territories answers claimed with no parameters, quote for city and state, quotes for slugs (§2 Quote, §8 limits)", async () => {
    const none = await jsonOf(await get("/api/territories"));
    expectFields(none, { claimed: "array", claimedCount: "integer" }, "TerritoriesResponse");
    expect(none.quote).toBeUndefined();
    const one = await jsonOf(await get(`/api/territories?city=${TOWN.city}&state=${TOWN.state}`));
    expectFields(one.quote, { ...QUOTE, city: "string", state: "string" }, "Quote");
    expect(one.quote).toMatchObject({ ...TOWN, available: true, subscribers: 1, tier: 1, priceCents: 1000, nextTierPriceCents: 1500 });
    const batch = await jsonOf(await get(`/api/territories?slugs=${TOWN.slug},nampa-idaho`));
    expect(batch.quotes.map((q: any) => q.slug)).toEqual([TOWN.slug, "nampa-idaho"]);
    for (const q of batch.quotes) expectFields(q, QUOTE, "quotes[]");
    for (const [query, path] of [[`slugs=${Array(31).fill(TOWN.slug).join(",")}`, "slugs"], [`slugs=${"a".repeat(4001)}`, "slugs"], [`city=${"a".repeat(121)}&state=Idaho`, "city"], [`city=Boise&state=${"a".repeat(61)}`, "state"]]) {
      const p = await expectProblem(await get(`/api/territories?${query}`), 400, "validation_error", "/api/territories");
      expect(p.issues[0].path).toBe(path);
    }
  });

  it("§4 Reads: GET /api/oembed answers the rich OEmbedResponse for a city or edition page (maxwidth, maxheight accepted and ignored: one fixed size); format=xml 501; 400 without url; 404 for another page", async () => {
    for (const page of [`/${TOWN.slug}`, `/${TOWN.slug}/${TODAY}`]) {
      const body = await jsonOf(await get(`/api/oembed?url=${encodeURIComponent(spec.server.url + page)}&format=json&maxwidth=1200&maxheight=900`));
      expectFields(body, { type: "string", version: "string", provider_name: "string?", provider_url: "string?", title: "string?", html: "string", width: "integer", height: "integer" }, "OEmbedResponse");
      expect(body).toMatchObject({ type: "rich", version: "1.0" });
      expect(body.html).toMatch(/^<iframe [^>]*src="[^"]+"/);
      // §2 "width, height: fixed size": the same answer whatever the consumer's maximum.
      for (const max of ["", "&maxwidth=100&maxheight=50"]) {
        const other = await jsonOf(await get(`/api/oembed?url=${encodeURIComponent(spec.server.url + page)}${max}`));
        expect([other.width, other.height]).toEqual([body.width, body.height]);
      }
    }
    const url = encodeURIComponent(`${spec.server.url}/${TOWN.slug}`);
    const xml = await get(`/api/oembed?url=${url}&format=xml`);
    expect(xml.status).toBe(501);
    expect(xml.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(await xml.json()).toMatchObject({ status: 501, instance: "/api/oembed" });
    await expectProblem(await get("/api/oembed"), 400, "validation_error", "/api/oembed");
    expect((await get(`/api/oembed?url=${encodeURIComponent("https://elsewhere.example/boise-idaho")}`)).status).toBe(404);
  });

  it("§4 Reads: GET /api/listing-quote (slug), /api/listing-order (id) and /api/pricing answer with their parameters", async () => {
    const quote = await jsonOf(await get(`/api/listing-quote?slug=${TOWN.slug}`));
    expect(quote.slug).toBe(TOWN.slug);
    const pricing = await jsonOf(await get("/api/pricing"));
    // §2: listings are free, 10 dollars or 25 dollars featured, one-off; the lease 10 dollars a month for the first 1,000.
    for (const kind of ["event", "business"]) expect(pricing[kind].map((t: any) => t.priceCents)).toEqual([0, 1000, 2500]);
    expect(JSON.stringify(pricing)).toContain("1000");
    // An order that does not exist; a followed order is in interface-spec-writes.
    const unknown = "lo_00000000-0000-4000-8000-000000000000";
    expect((await get(`/api/listing-order?id=${unknown}`)).status).toBe(404);
    expect((await get("/api/listing-order?id=order-1")).status).toBe(400);
  });

  it("§1 and §8: every read is cross-origin open and carries Cache-Control", async () => {
    const reads = ["/api/cities", "/api/cities-census?state=Idaho", `/api/city/${TOWN.slug}`, `/api/facts/${TOWN.slug}`, `/api/weather/${TOWN.slug}`,
      `/api/archive/${TOWN.slug}/${TODAY}`, `/api/archive/${TOWN.slug}/${TODAY}.md`, "/api/search?q=boise", "/api/territories",
      `/api/oembed?url=${encodeURIComponent(`${spec.server.url}/${TOWN.slug}`)}`, `/api/listing-quote?slug=${TOWN.slug}`, "/api/pricing"];
    for (const path of reads) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("access-control-allow-origin"), path).toBe("*");
      expect(res.headers.get("cache-control"), path).toMatch(/max-age=\d+/);
    }
  });
});

describe("§7 Errors", () => {
  it("§7 Errors: an unrouted /api path is 404 endpoint_not_found, a wrong method 405 with Allow; status, error = detail and instance per rule 1", async () => {
    await expectProblem(await get("/api/no-such-thing"), 404, "endpoint_not_found", "/api/no-such-thing");
    const wrong = await get("/api/cities", { method: "DELETE" });
    expect(wrong.headers.get("allow")).toMatch(/\bGET\b/);
    await expectProblem(wrong, 405, "method_not_allowed", "/api/cities");
    const read = await get("/api/subscribe");
    expect(read.headers.get("allow")).toMatch(/\bPOST\b/);
    await expectProblem(read, 405, "method_not_allowed", "/api/subscribe");
  });
});

describe("§9 Versioning", () => {
  it("§9: every /api path answers at /api/v1 with the same body, and every /api answer names its version in API-Version", async () => {
    const paths = ["/cities", `/city/${TOWN.slug}`, `/archive/${TOWN.slug}/${TODAY}`, "/search?q=boise", `/territories?city=${TOWN.city}&state=${TOWN.state}`, "/pricing"];
    for (const p of paths) {
      const [plain, v1] = await Promise.all([get(`/api${p}`), get(`/api/v1${p}`)]);
      expect(v1.status, p).toBe(200);
      expect(await v1.json(), p).toEqual(await plain.json());
      for (const r of [plain, v1]) {
        expect(r.headers.get("api-version"), p).toBe("v1");
        // §9 rule 5: nothing is deprecated.
        expect(r.headers.get("deprecation"), p).toBeNull();
        expect(r.headers.get("sunset"), p).toBeNull();
      }
    }
    await expectProblem(await get("/api/v1/city/atlantis-idaho"), 404, "city_not_found", "/api/v1/city/atlantis-idaho");
    await expectProblem(await get("/api/v1/no-such-thing"), 404, "endpoint_not_found");
  });
});
