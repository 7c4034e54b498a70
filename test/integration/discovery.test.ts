import crypto from "node:crypto";
import SwaggerParser from "@apidevtools/swagger-parser";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { BUSINESS, EVENT } from "../helpers/commerce.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operations } from "../../src/contract/operations/index.ts";
import { EMBED_SIZE } from "../../src/contract/operations/oembed.ts";
import { PROBLEMS } from "../../src/contract/problems.ts";
import { buildSite } from "../../src/services/site/publish.ts";
import { subscriberToken } from "../../src/services/readers/unsubscribe.ts";
import { addEdition, addSubscriber } from "../helpers/seed.ts";
import { startOpenMeteoServer, type OpenMeteoServer } from "../helpers/open-meteo-server.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// Discovery over real HTTP: the OpenAPI description (linted, validated, and checked against live
// answers), the RFC 9727 API catalog, the agent skills index, oEmbed, robots.txt, llms.txt and the
// developer page.

const NOW = "2026-11-22T15:00:00.000Z";

let server: TestServer;
let meteo: OpenMeteoServer;

beforeAll(async () => {
  meteo = await startOpenMeteoServer();
  server = await startTestServer({ NOW, MAIL_SENDER: "off", OPEN_METEO_URL: meteo.url, SUBSCRIBE_RATE_LIMIT: "1000" });
  const db = server.ctx.db;
  addSubscriber(db, "boise-idaho", "reader@example.org");
  addSubscriber(db, "st-louis-missouri", "reader@example.org"); // a city without editions yet
  addEdition(db, "boise-idaho", "2026-11-19", "Boise: a clear, cold Thursday");
  addEdition(db, "boise-idaho", "2026-11-20", "Boise: frost, then sun", "Frost on the foothills until ten, then sun.");
  await buildSite(server.ctx);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await meteo?.close();
});

type Doc = {
  paths: Record<string, Record<string, { operationId: string; security?: unknown[]; responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>;
  info: { license?: { name: string } };
  servers: Array<{ url: string }>;
};

describe("/openapi.json", () => {
  let doc: Doc;
  beforeAll(async () => {
    const res = await server.get("/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("cache-control")).toMatch(/max-age=\d+/);
    expect(res.headers.get("etag")).toBeTruthy();
    doc = await res.json() as Doc;
  });

  it("passes Redocly's recommended lint rules with no error and no warning", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: `${server.url}/openapi.json`, config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it("is a valid OpenAPI 3.1 document for swagger-parser", async () => {
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });

  it("describes servers, the license, anonymous security on every operation and every problem code a route can answer", () => {
    expect(doc.servers[0].url).toBe(server.url);
    expect(doc.info.license?.name).toBeTruthy();
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        expect(op.security, `${method} ${path}`).toEqual([]);
        expect(op.responses["404"] ?? op.responses["405"], `${method} ${path} documents its problems`).toBeDefined();
      }
    }
    expect(doc.paths["/api/oembed"].get.responses["501"].content!["application/problem+json"]).toBeDefined();
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/api/oembed", "/api/status", "/api/subscribe", "/api/search", "/api/weather/{slug}"]));
  });

  /**
   * A live request per documented operation (by operationId). Commerce operations arrive from
   * another branch: they are `pending` until a sample is added here after the merge.
   */
  const SAMPLES: Record<string, { method?: "GET" | "POST" | "PATCH"; path: string; body?: unknown; status?: number }[]> = {
    listCities: [{ path: "/api/cities" }],
    getLiveness: [{ path: "/livez" }],
    getReadiness: [{ path: "/readyz" }],
    listCensusCities: [{ path: "/api/cities-census?state=Idaho&minPopulation=50000" }, { path: "/api/cities-census?minPopulation=5", status: 400 }],
    getCity: [{ path: "/api/city/boise-idaho" }, { path: "/api/v1/city/atlantis-idaho", status: 404 }],
    getFacts: [{ path: "/api/facts/boise-idaho" }],
    getEvents: [{ path: "/api/events/boise-idaho" }, { path: "/api/events/boise-idaho?from=2026-11-28&to=2026-11-28" }, { path: "/api/events/boise-idaho?from=2026-11-28&to=2026-11-20", status: 400 }],
    findPlace: [{ path: "/api/places?q=ely%2C%20nevada" }, { path: "/api/places?q=zzqxv" }],
    getPlace: [{ path: "/api/place/marfa-texas" }, { path: "/api/place/boise-idaho" }, { path: "/api/v1/place/marfaa-texas", status: 404 }],
    getArchive: [{ path: "/api/archive/boise-idaho/2026-11-20" }, { path: "/api/archive/boise-idaho/2026-11-21", status: 404 }],
    searchArchive: [{ path: "/api/search?q=frost" }, { path: "/api/search?q=x", status: 400 }],
    subscribe: [{ method: "POST", path: "/api/subscribe", body: { email: "openapi@example.org", city: "Boise", state: "Idaho", slug: "boise-idaho" } }],
    // TOKEN: the manage token of the address the subscribe sample above subscribed.
    getReaderSubscriptions: [{ path: "/api/subscriptions/TOKEN" }, { path: "/api/subscriptions/1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", status: 404 }, { path: "/api/subscriptions/nope", status: 400 }],
    updateReaderCity: [
      { method: "PATCH", path: "/api/subscriptions/TOKEN/cities/boise-idaho", body: { deliveryTime: "07:30", hiddenSections: ["sun"] } },
      { method: "PATCH", path: "/api/subscriptions/TOKEN/cities/boise-idaho", body: { frequency: "monthly" }, status: 400 },
      { method: "PATCH", path: "/api/subscriptions/TOKEN/cities/tucson-arizona", body: { frequency: "weekly" }, status: 404 },
    ],
    getWeather: [{ path: "/api/weather/boise-idaho" }],
    getOEmbed: [{ path: "/api/oembed?url=PLACEHOLDER" }, { path: "/api/oembed?url=PLACEHOLDER&format=xml", status: 501 }],
    getStatus: [{ path: "/api/status" }],
    getPricing: [{ path: "/api/pricing" }],
    getListingQuote: [{ path: "/api/listing-quote?slug=boise-idaho" }, { path: "/api/listing-quote?slug=Boise!", status: 400 }],
    getTerritories: [{ path: "/api/territories" }, { path: "/api/territories?city=Boise&state=Idaho" }, { path: "/api/territories?slugs=boise-idaho,tucson-arizona" }, { path: "/api/territories?city=Boise", status: 400 }],
    createListingCheckout: [
      { method: "POST", path: "/api/listing-checkout", body: { ...EVENT } },
      { method: "POST", path: "/api/listing-checkout", body: { ...EVENT, tier: "free" } },
      { method: "POST", path: "/api/listing-checkout", body: { ...EVENT, url: "ftp://example.com" } },
      { method: "POST", path: "/api/listing-checkout", body: { ...EVENT, tier: "gold" }, status: 400 },
    ],
    createBusinessCheckout: [{ method: "POST", path: "/api/business-checkout", body: { ...BUSINESS } }],
    operatorAction: [{ method: "POST", path: "/api/operator-actions", body: { action: "guest-checkout", city: "Omaha", state: "Nebraska", email: "op@example.com" } }, { method: "POST", path: "/api/operator-actions", body: { action: "guest-checkout", city: "Omaha", state: "Nebraska", email: "op@example.com" }, status: 409 }],
    getListingOrder: [{ path: "/api/listing-order?id=lo_00000000-0000-4000-8000-000000000000", status: 404 }, { path: "/api/listing-order?id=nope", status: 400 }],
  };
  const PENDING_PATHS: string[] = [];
  const readerToken = (email: string) => {
    const id = server.ctx.db.prepare("SELECT id FROM subscribers WHERE email = ?").pluck().get(email) as number;
    return subscriberToken(server.ctx, id, email);
  };

  it("answers every documented operation with a body that matches its documented schema", async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const id = "https://citydaily.test/openapi.json";
    ajv.addSchema({ ...doc, $id: id });
    const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");
    let checked = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const samples = SAMPLES[op.operationId];
        if (!samples && PENDING_PATHS.includes(path)) continue;
        expect(samples, `no live sample for ${op.operationId}: add one to SAMPLES`).toBeDefined();
        for (const s of samples!) {
          const url = s.path.replace("PLACEHOLDER", encodeURIComponent(`${server.url}/boise-idaho`)).replace("TOKEN", () => readerToken("openapi@example.org"));
          const res = s.method === "POST" || s.method === "PATCH" ? await server.post(url, s.body, { method: s.method }) : await server.get(url);
          const status = s.status ?? 200;
          expect(res.status, `${method} ${url}`).toBe(status);
          const type = (res.headers.get("content-type") ?? "").split(";")[0];
          const documented = op.responses[String(status)]?.content?.[type];
          expect(documented, `${method} ${path} documents ${status} ${type}`).toBeDefined();
          const validate = ajv.compile({ $ref: `${id}#/${pointer("paths", path, method, "responses", String(status), "content", type, "schema")}` });
          const body = await res.json();
          expect(validate(body), `${method} ${url}: ${ajv.errorsText(validate.errors)}`).toBe(true);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(15);
  });
});

describe("/.well-known/api-catalog (RFC 9727)", () => {
  it("GET is a linkset anchored at the API with service-desc, service-doc and status links that work", async () => {
    const res = await server.get("/.well-known/api-catalog");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe('application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"');
    expect(res.headers.get("link")).toBe(`<${server.url}/.well-known/api-catalog>; rel="api-catalog"`);
    const { linkset } = await res.json() as { linkset: Array<Record<string, Array<{ href: string; type: string }>> & { anchor: string }> };
    expect(linkset.map((l) => l.anchor)).toEqual([`${server.url}/api`, `${server.url}/api/v1`, `${server.url}/mcp`]);
    const api = linkset[0];
    expect(api["service-desc"][0]).toEqual({ href: `${server.url}/openapi.json`, type: "application/vnd.oai.openapi+json;version=3.1" });
    expect(((await (await fetch(api["service-desc"][0].href)).json()) as { openapi: string }).openapi).toBe("3.1.0");
    for (const doc of api["service-doc"]) expect((await fetch(doc.href)).status, doc.href).toBe(200);
    const status = await fetch(api.status[0].href);
    expect(await status.json()).toEqual({ status: "ok", apiVersion: "v1", cities: 2, latestEdition: "2026-11-20" });
  });

  it("HEAD answers the Link header with rel=api-catalog and no body; the home page advertises it too", async () => {
    const head = await server.get("/.well-known/api-catalog", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("link")).toBe(`<${server.url}/.well-known/api-catalog>; rel="api-catalog"`);
    expect(await head.text()).toBe("");
    const home = await server.get("/");
    expect(home.status).toBe(200);
    expect(home.headers.get("link")).toContain(`<${server.url}/.well-known/api-catalog>; rel="api-catalog"`);
  });
});

describe("what a scanner or host checks", () => {
  it("HEAD is answered wherever GET is, with the GET's headers and no body", async () => {
    for (const p of ["/openapi.json", "/places?q=ely", "/developers", "/api/cities", "/mcp/server-card", "/.well-known/mcp/catalog.json", "/robots.txt", "/boise-idaho", "/marfa-texas", "/marfa-texas.md", "/api", "/listing-policy", "/mcp"]) {
      const [get, head] = [await server.get(p), await server.get(p, { method: "HEAD" })];
      expect(get.status, p).toBe(200);
      expect(head.status, p).toBe(200);
      expect(head.headers.get("content-type"), p).toBe(get.headers.get("content-type"));
      expect(await head.text(), p).toBe("");
    }
  });

  it("the API catalog's anchors answer, with links to the description, the documentation and the status", async () => {
    const { linkset } = await (await server.get("/.well-known/api-catalog")).json() as { linkset: Array<{ anchor: string }> };
    for (const { anchor } of linkset) {
      const res = await fetch(anchor, { headers: { Accept: "application/json" } });
      expect(res.status, anchor).toBe(200);
    }
    const api = await server.get("/api/v1");
    expect(api.headers.get("link")).toContain(`<${server.url}/openapi.json>; rel="service-desc"`);
    expect(await api.json()).toMatchObject({ api: `${server.url}/api/v1`, openapi: `${server.url}/openapi.json`, mcp: `${server.url}/mcp` });
    // Other methods and paths under /api are still problems.
    expect((await server.post("/api", {})).status).toBe(404);
  });

  it("pages link the API catalog, the MCP server card and their markdown twin (a place without a newsletter too)", async () => {
    for (const page of ["/boise-idaho", "/marfa-texas", "/developers"]) {
      const link = (await server.get(page)).headers.get("link") ?? "";
      expect(link, page).toContain(`<${server.url}/.well-known/api-catalog>; rel="api-catalog"`);
      expect(link, page).toContain(`<${server.url}/mcp/server-card>; rel="service-desc"; type="application/mcp-server-card+json"`);
      expect(link, page).toContain(`</${page.slice(1)}.md>; rel="alternate"; type="text/markdown"`);
    }
    // The twin of a place without a newsletter exists, by path and by Accept.
    for (const res of [await server.get("/marfa-texas.md"), await server.get("/marfa-texas", { headers: { Accept: "text/markdown" } })]) {
      expect(res.headers.get("content-type")).toMatch(/^text\/markdown/);
      expect(await res.text()).toContain("# Marfa, Texas");
    }
    expect((await server.get("/atlantis-nowhere.md")).status).toBe(404);
  });

  it("robots.txt carries a Content-Signal line; the MCP catalog of the server-card draft lists the card", async () => {
    expect(await (await server.get("/robots.txt")).text()).toMatch(/^Content-Signal: search=yes, ai-input=yes, ai-train=no$/m);
    const res = await server.get("/.well-known/mcp/catalog.json");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(await res.json()).toEqual({ specVersion: "draft", entries: [{ identifier: expect.stringMatching(/^urn:air:[^:]+:mcp:citydaily$/), type: "application/mcp-server-card+json", url: `${server.url}/mcp/server-card` }] });
  });

  it("the developer page documents both cases of a place without a newsletter, and a real answer names its case", async () => {
    for (const text of [(await (await server.get("/developers")).text()).replaceAll("<wbr>", ""), await (await server.get("/developers.md")).text()]) {
      for (const words of ["unknown_place", "no_newsletter", "not_selling", "/api/place/{slug}"]) expect(text, words).toContain(words);
    }
    const marfa = await (await server.get("/api/weather/marfa-texas")).json() as Record<string, unknown>;
    expect(marfa).toMatchObject({ code: "city_not_found", reason: "no_newsletter", place: { slug: "marfa-texas", hasNewsletter: false } });
    expect(marfa.detail).toBe("Marfa, Texas has no newsletter yet; subscribing to it starts one (POST /api/subscribe with the slug marfa-texas). It is a real U.S. place: its facts are at /api/place/marfa-texas.");
    const nowhere = await (await server.get("/api/city/boize-idaho")).json() as Record<string, unknown>;
    expect(nowhere).toMatchObject({ code: "city_not_found", reason: "unknown_place" });
    expect(nowhere.suggestions).toContain("boise-idaho");
    const place = await (await server.get("/api/place/marfa-texas")).json() as Record<string, unknown>;
    expect(place).toMatchObject({ slug: "marfa-texas", hasNewsletter: false, timezone: "America/Chicago", localDate: "2026-11-22" });
  });
});

describe("/.well-known/agent-skills/index.json", () => {
  it("lists the four skills; every digest is the sha256 of the exact bytes served, every SKILL.md has matching front matter", async () => {
    const res = await server.get("/.well-known/agent-skills/index.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const index = await res.json() as { $schema: string; skills: Array<{ name: string; type: string; description: string; url: string; digest: string }> };
    expect(index.$schema).toBe("https://schemas.agentskills.io/discovery/0.2.0/schema.json");
    expect(index.skills.map((s) => s.name)).toEqual(["buy-listing", "lease-town", "read-city-editions", "subscribe-to-city"]);
    for (const s of index.skills) {
      expect(s.type).toBe("skill-md");
      expect(s.url).toBe(`${server.url}/.well-known/agent-skills/${s.name}/SKILL.md`);
      const doc = await fetch(s.url);
      expect(doc.status, s.url).toBe(200);
      expect(doc.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
      const bytes = Buffer.from(await doc.arrayBuffer());
      expect(s.digest).toBe(`sha256:${crypto.createHash("sha256").update(bytes).digest("hex")}`);
      const text = bytes.toString("utf8");
      const front = /^---\nname: (.+)\ndescription: (.+)\n---\n/.exec(text);
      expect(front?.[1]).toBe(s.name);
      expect(front?.[2]).toBe(s.description);
      expect(text).toContain(server.url);
      expect(text).not.toContain("{{BASE_URL}}");
    }
    expect((await server.get("/.well-known/agent-skills/nope/SKILL.md")).status).toBe(404);
  });
});

describe("/api/oembed", () => {
  const oembed = (url: string, extra = "") => server.get(`/api/oembed?url=${encodeURIComponent(url)}${extra}`);

  it("answers the card's one fixed size whatever maxwidth and maxheight say (the spec: accepted and ignored)", async () => {
    const size = async (extra: string) => {
      const res = await oembed(`${server.url}/boise-idaho`, extra);
      if (res.status !== 200) return res.status;
      const b = await res.json() as { width: number; height: number; html: string };
      expect(b.html).toContain(`width="${b.width}" height="${b.height}"`);
      return [b.width, b.height];
    };
    for (const extra of ["", "&maxwidth=1000&maxheight=1000", "&maxwidth=450", "&maxheight=299", "&maxwidth=200&maxheight=100", "&maxwidth=1"]) {
      expect(await size(extra)).toEqual([480, 320]);
    }
    expect(await size("&maxwidth=0")).toBe(400);
  });

  it("answers a rich iframe of the city's card", async () => {
    const res = await oembed(`${server.url}/boise-idaho`);
    expect(res.status).toBe(200);
    const body = await res.json() as { type: string; version: string; html: string; width: number; height: number; provider_name: string; provider_url: string; title: string };
    expect(body).toMatchObject({ type: "rich", version: "1.0", width: EMBED_SIZE.width, height: EMBED_SIZE.height, provider_name: "citydaily", provider_url: server.url, title: "Boise, Idaho Daily" });
    const src = /<iframe src="([^"]+)" width="(\d+)" height="(\d+)"/.exec(body.html)!;
    expect(src[1]).toBe(`${server.url}/embed/boise-idaho`);
    expect([Number(src[2]), Number(src[3])]).toEqual([EMBED_SIZE.width, EMBED_SIZE.height]);
    // The card: the latest edition, no site chrome.
    const card = await fetch(src[1]);
    expect(card.status).toBe(200);
    const html = await card.text();
    expect(html).toContain("Boise: frost, then sun");
    expect(html).toContain("Frost on the foothills");
    expect(html).not.toMatch(/<header|<nav|<footer|<script/);
  });

  it("answers a dated edition page with that edition's card", async () => {
    const body = await (await oembed(`${server.url}/boise-idaho/2026-11-19`)).json() as { html: string; title: string };
    expect(body.title).toContain("Boise: a clear, cold Thursday");
    expect(body.html).toContain(`src="${server.url}/embed/boise-idaho/2026-11-19"`);
    const card = await (await fetch(`${server.url}/embed/boise-idaho/2026-11-19`)).text();
    expect(card).toContain("Boise: a clear, cold Thursday");
  });

  it("404 not_found for other hosts, other paths, cities without editions and missing dates; 501 for xml; 400 without a url", async () => {
    for (const url of ["https://example.com/boise-idaho", `${server.url}/cities/x/y`, `${server.url}/st-louis-missouri`, `${server.url}/boise-idaho/2026-11-21`, `${server.url}/atlantis-idaho`]) {
      const res = await oembed(url);
      expect(res.status, url).toBe(404);
      expect(((await res.json()) as { code: string }).code).toBe("not_found");
    }
    const xml = await oembed(`${server.url}/boise-idaho`, "&format=xml");
    expect(xml.status).toBe(501);
    expect(await xml.json()).toMatchObject({ code: "not_implemented", type: `${server.url}/developers#error-not_implemented` });
    const missing = await server.get("/api/oembed");
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { issues: Array<{ path: string }> }).issues.map((i) => i.path)).toEqual(["url"]);
  });

  it("city and edition pages carry the oEmbed discovery link and the markdown alternate", async () => {
    for (const page of ["/boise-idaho", "/boise-idaho/2026-11-20"]) {
      const html = await (await server.get(page)).text();
      expect(html).toContain(`<link rel="alternate" type="application/json+oembed" href="${server.url}/api/oembed?url=${encodeURIComponent(server.url + page)}"`);
      expect(html).toContain(`<link rel="alternate" type="text/markdown" href="${server.url}${page}.md"`);
    }
  });
});

describe("robots.txt, llms.txt and the developer page", () => {
  it("robots.txt names the sitemap index, which exists", async () => {
    const res = await server.get("/robots.txt");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const text = await res.text();
    expect(text).toMatch(/^User-agent: \*$/m);
    expect(text).toContain(`Sitemap: ${server.url}/sitemap.xml`);
    expect((await server.get("/sitemap.xml")).status).toBe(200);
  });

  it("llms.txt follows llmstxt.org and links the twins, the OpenAPI description, the MCP endpoint and the skills", async () => {
    const text = await (await server.get("/llms.txt")).text();
    expect(text).toMatch(/^# citydaily\n\n> /);
    expect(text).toMatch(/^## Start here$/m);
    expect(text).toMatch(/^## Optional$/m);
    for (const link of [`${server.url}/cities.md`, `${server.url}/developers.md`, `${server.url}/openapi.json`, `${server.url}/mcp`, `${server.url}/.well-known/agent-skills/index.json`]) {
      expect(text).toContain(`](${link})`);
    }
  });

  it("has an #error-<code> anchor for every problem code, and a real problem's type points at one", async () => {
    const html = await (await server.get("/developers")).text();
    for (const code of Object.keys(PROBLEMS)) expect(html, code).toContain(`id="error-${code}"`);
    const problem = await (await server.get("/api/city/atlantis-idaho")).json() as { type: string };
    const anchor = new URL(problem.type);
    expect(anchor.pathname).toBe("/developers");
    expect(html).toContain(`id="${anchor.hash.slice(1)}"`);
    for (const id of ["endpoints", "quick-start", "search-syntax", "buying-a-listing-or-leasing-a-town", "events-poll-no-webhooks", "mcp", "discovery", "versioning"]) expect(html, id).toContain(`<h2 id="${id}">`);
    for (const op of operations) expect(html.replaceAll("<wbr>", ""), op.path).toContain(`<code>${op.path}</code>`);
    expect(html).toContain(`claude mcp add --transport http citydaily ${server.url}/mcp`);
    expect(html).toContain("<code>rain OR snow</code>");
  });

  it("developers.md covers the quick start, search syntax, buying, polling, versioning, MCP set-up and discovery", async () => {
    const res = await server.get("/developers", { headers: { Accept: "text/markdown" } });
    expect(res.headers.get("content-type")).toMatch(/^text\/markdown/);
    const md = await res.text();
    for (const heading of ["## Quick start", "## Search syntax", "## Buying a listing or leasing a town", "## Events: poll, no webhooks", "## MCP", "## Discovery", "## Versioning", "## Errors"]) {
      expect(md, heading).toContain(`\n${heading}\n`);
    }
    expect(md).toContain(`claude mcp add --transport http citydaily ${server.url}/mcp`);
    expect(md).toContain("Sunset");
    expect(md).toContain(`${server.url}/.well-known/api-catalog`);
    // Retrying purchases safely and the town calendar: the guide must tell agents how.
    for (const heading of ["## Retrying safely: Idempotency-Key", "## A town's calendar"]) expect(md, heading).toContain(`\n${heading}\n`);
    expect(md).toMatch(/same key with a different body is `422 idempotency_key_reused`/);
    expect(md).toContain("GET /api/events/{slug}?from=YYYY-MM-DD&to=YYYY-MM-DD");
    expect(md).toContain("/{slug}/calendar.ics");
    expect(md).toContain("| GET | `/api/events/{slug}` |");
  });
});
