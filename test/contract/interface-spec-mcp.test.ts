import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectV1, type Connected } from "../helpers/mcp-clients.ts";
import { EARLY_TOWN, TODAY, TOWN, startSpecServer, type SpecServer } from "./spec-server.ts";

// The interface spec's MCP endpoint and discovery resources (section 4), against the real server
// after a real morning: the nine methods as raw JSON-RPC exactly as the spec shows them, the twelve
// tools it names through the official client, and every discovery file with its documented type.

let spec: SpecServer;
let mcp: Connected;

beforeAll(async () => {
  spec = await startSpecServer({ morning: true });
  mcp = await connectV1(`${spec.server.url}/mcp`);
}, 120_000);
afterAll(async () => {
  await mcp?.close();
  await spec?.stop();
});

const SPEC_TOOLS = ["list_cities", "get_city", "get_archive", "search_archives", "get_weather", "subscribe_city", "get_town_quote", "start_town_checkout",
  "get_listing_prices", "create_event_listing", "create_business_listing", "get_listing_order"];
const WRITES = ["subscribe_city", "start_town_checkout", "create_event_listing", "create_business_listing"];

type RpcAnswer = { status: number; body: string; message?: { jsonrpc?: string; id?: unknown; result?: Record<string, any>; error?: unknown } };
async function rpc(request: Record<string, unknown>): Promise<RpcAnswer> {
  const res = await fetch(`${spec.server.url}/mcp`, {
    method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" }, body: JSON.stringify(request),
  });
  const body = await res.text();
  if (!body) return { status: res.status, body };
  // Streamable HTTP may answer one SSE event instead of a JSON body: the same JSON-RPC message.
  const json = (res.headers.get("content-type") ?? "").startsWith("text/event-stream")
    ? body.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("") : body;
  return { status: res.status, body, message: JSON.parse(json) };
}

const day = (offset: number) => new Date(Date.parse(TODAY) + offset * 86_400_000).toISOString().slice(0, 10);

describe("§4 MCP endpoint", () => {
  it("§4 MCP endpoint: POST /mcp answers each of the nine methods with a JSON-RPC 2.0 response", async () => {
    const calls: Array<[string, Record<string, unknown>?]> = [
      ["initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "spec-client", version: "1.0.0" } }],
      ["tools/list", {}],
      ["tools/call", { name: "get_city", arguments: { slug: TOWN.slug } }],
      ["resources/list", {}],
      ["resources/templates/list", {}],
      ["resources/read", { uri: `${spec.server.url}/api/cities` }],
      ["prompts/list", {}],
      ["prompts/get", { name: "brief_me_on_a_town", arguments: { slug: TOWN.slug } }],
      ["ping", undefined],
    ];
    const results: Record<string, Record<string, any>> = {};
    for (const [i, [method, params]] of calls.entries()) {
      const id = i % 2 ? `call-${i}` : i; // ids may be strings or integers
      const a = await rpc({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) });
      expect(a.status, method).toBe(200);
      expect(a.message, method).toMatchObject({ jsonrpc: "2.0", id, result: expect.any(Object) });
      expect(a.message!.error, method).toBeUndefined();
      results[method] = a.message!.result!;
    }
    expect(results.initialize.serverInfo.name).toEqual(expect.any(String));
    expect(results["tools/call"].isError).toBeFalsy();
    expect(JSON.stringify(results["tools/call"])).toContain(TOWN.slug);
    // The resources the spec names: overview, OpenAPI, city directory, recent editions, developer docs.
    const uris = results["resources/list"].resources.map((r: { uri: string }) => r.uri.replace(spec.server.url, ""));
    expect(uris).toEqual(expect.arrayContaining(["/llms.txt", "/openapi.json", "/api/cities", "/feed.md", "/developers.md"]));
    const templates = results["resources/templates/list"].resourceTemplates.map((t: { uriTemplate: string }) => t.uriTemplate.replace(spec.server.url, ""));
    expect(templates).toEqual(expect.arrayContaining(["/{slug}.md", "/{slug}/{date}.md"]));
    expect(JSON.stringify(results["resources/read"].contents)).toContain(TOWN.slug);
    expect(results["prompts/list"].prompts.length).toBeGreaterThan(0);
    expect(results["prompts/get"].messages.length).toBeGreaterThan(0);
  });

  it("§4 MCP endpoint: a notification is answered 202 with no body", async () => {
    const a = await rpc({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(a.status).toBe(202);
    expect(a.body).toBe("");
  });

  it("§4 MCP endpoint: GET /mcp is a human-readable setup page", async () => {
    const res = await fetch(`${spec.server.url}/mcp`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await res.text()).toContain(`${spec.server.url}/mcp`);
  });

  it("§4 MCP endpoint: the twelve tools are listed, the writes annotated readOnlyHint: false", async () => {
    const { tools } = await mcp.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of SPEC_TOOLS) expect(byName.has(name), name).toBe(true);
    for (const name of WRITES) expect(byName.get(name)!.annotations?.readOnlyHint, name).toBe(false);
    for (const name of SPEC_TOOLS.filter((n) => !WRITES.includes(n))) expect(byName.get(name)!.annotations?.readOnlyHint, name).not.toBe(false);
  });

  it("§4 MCP endpoint: each of the twelve tools answers a call; the purchase tools return a payment link", async () => {
    const EVENT = { slug: TOWN.slug, tier: "standard", title: "Harvest Fair", description: "Pumpkins and cider.", url: "https://harvestfair.example/2026", startsAt: day(6), buyerEmail: "buyer@example.com" };
    const BUSINESS = { slug: TOWN.slug, tier: "standard", title: "Rosemary Bakery", description: "Sourdough.", url: "https://rosemary-bakery.example/", address: "112 N 8th St", category: "Bakery", buyerEmail: "owner@example.com" };
    const args: Record<string, Record<string, unknown>> = {
      list_cities: {}, get_city: { slug: TOWN.slug }, get_archive: { slug: TOWN.slug, date: TODAY }, search_archives: { q: "boise" },
      get_weather: { slug: TOWN.slug }, subscribe_city: { email: "mcp-reader@example.org", slug: EARLY_TOWN }, get_town_quote: { city: TOWN.city, state: TOWN.state },
      // The spec's guest checkout: action, city and state, nothing else.
      start_town_checkout: { action: "guest-checkout", city: "Ely", state: "Nevada" },
      get_listing_prices: {}, create_event_listing: EVENT, create_business_listing: BUSINESS,
    };
    const answers: Record<string, { isError?: boolean; content: Array<{ text?: string }>; structuredContent?: Record<string, any> }> = {};
    for (const [name, a] of Object.entries(args)) {
      answers[name] = (await mcp.client.callTool({ name, arguments: a })) as (typeof answers)[string];
      expect(answers[name].isError, `${name}: ${answers[name].content.map((c) => c.text).join("")}`).toBeFalsy();
    }
    const orderId = answers.create_event_listing.structuredContent!.orderId;
    const order = (await mcp.client.callTool({ name: "get_listing_order", arguments: { id: orderId } })) as (typeof answers)[string];
    expect(order.isError).toBeFalsy();
    expect(order.structuredContent).toMatchObject({ published: false, status: expect.any(String) });
    for (const name of ["start_town_checkout", "create_event_listing", "create_business_listing"]) {
      expect(() => new URL(answers[name].structuredContent!.checkoutUrl), name).not.toThrow();
    }
    expect(answers.get_archive.content.map((c) => c.text).join("")).toMatch(/^# /); // markdown
  });
});

describe("§4 Discovery and format endpoints", () => {
  const get = (path: string, init?: RequestInit) => fetch(`${spec.server.url}${path}`, init);
  const typeOf = (res: Response) => (res.headers.get("content-type") ?? "").split(";")[0];

  it("§4 Discovery: GET /feed.xml is an RSS 2.0 feed of recent editions (application/rss+xml)", async () => {
    const res = await get("/feed.xml");
    expect(typeOf(res)).toBe("application/rss+xml");
    const xml = await res.text();
    expect(xml).toMatch(/<rss version="2\.0"/);
    expect(xml).toContain(`/${TOWN.slug}/${TODAY}`);
  });

  it("§4 Discovery: GET /.well-known/api-catalog is an RFC 9727 linkset (application/linkset+json)", async () => {
    const res = await get("/.well-known/api-catalog");
    expect(typeOf(res)).toBe("application/linkset+json");
    const { linkset } = (await res.json()) as { linkset: Array<Record<string, any>> };
    expect(linkset.length).toBeGreaterThan(0);
    expect(linkset[0]["service-desc"][0].href).toBe(`${spec.server.url}/openapi.json`);
  });

  it("§4 Discovery: GET /developers is HTML, and markdown with Accept: text/markdown or at /developers.md", async () => {
    expect(typeOf(await get("/developers"))).toBe("text/html");
    for (const res of [await get("/developers", { headers: { Accept: "text/markdown" } }), await get("/developers.md")]) {
      expect(typeOf(res)).toBe("text/markdown");
      expect(await res.text()).toMatch(/^(---[\s\S]*?---\s*)?# /);
    }
  });

  it("§4 Discovery: GET /openapi.json is OpenAPI 3.1, documenting the guest checkout's body as action, city and state", async () => {
    const res = await get("/openapi.json");
    expect(typeOf(res)).toBe("application/json");
    const doc = (await res.json()) as Record<string, any>;
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.paths["/api/operator-actions"].post).toBeDefined();
    // §4 Writes: the body is action, city, state; an email may be given, never required.
    const body = doc.components.schemas.OperatorActionRequest;
    expect([...body.required].sort()).toEqual(["action", "city", "state"]);
    expect(body.properties.email.description).toMatch(/optional/i);
    expect(doc.paths["/api/operator-actions"].post.description).toMatch(/optional/i);
  });

  it("§4 Discovery: /llms.txt and /llms-full.txt are plain text, the agent skills index lists skills, /sitemap.xml is a sitemap index", async () => {
    for (const path of ["/llms.txt", "/llms-full.txt"]) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(typeOf(res), path).toBe("text/plain");
    }
    const skills = (await (await get("/.well-known/agent-skills/index.json")).json()) as { skills: Array<{ name: string; url: string }> };
    expect(skills.skills.map((s) => s.name)).toContain("lease-town");
    const sitemap = await get("/sitemap.xml");
    expect(sitemap.status).toBe(200);
    expect(await sitemap.text()).toContain("<sitemapindex");
  });

  it("§4 Discovery: the markdown twins are text/markdown with X-Markdown-Tokens, by .md or by Accept: text/markdown", async () => {
    const twins = [`/${TOWN.slug}.md`, `/${TOWN.slug}/${TODAY}.md`, "/cities.md", `/states/${TOWN.state.toLowerCase()}.md`, "/feed.md", "/developers.md"];
    for (const path of twins) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(typeOf(res), path).toBe("text/markdown");
      expect(Number(res.headers.get("x-markdown-tokens")), path).toBeGreaterThan(0);
    }
    const negotiated = await get(`/${TOWN.slug}`, { headers: { Accept: "text/markdown" } });
    expect(typeOf(negotiated)).toBe("text/markdown");
    expect(await negotiated.text()).toBe(await (await get(`/${TOWN.slug}.md`)).text());
  });
});
