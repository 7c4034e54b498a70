import { HtmlValidate } from "html-validate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allOperations } from "../../src/contract/operations/index.ts";
import { PROBLEMS } from "../../src/contract/problems.ts";
import { toolOperations } from "../../src/core/mcp/catalog.ts";
import { PROMPTS } from "../../src/mcp/prompts.ts";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { subscriberToken } from "../../src/services/readers/unsubscribe.ts";
import { buildSite } from "../../src/services/site/publish.ts";
import { BUSINESS, EVENT, payOnHostedPage } from "../helpers/commerce.ts";
import { CLIENTS, type AnyClient, type Connected } from "../helpers/mcp-clients.ts";
import { startOpenMeteoServer, type OpenMeteoServer } from "../helpers/open-meteo-server.ts";
import { addEdition, addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";

// The MCP endpoint through the SDK's own clients over streamable HTTP, for both protocol revisions.

// 15:00 UTC: 08:00 in Boise, 09:00 in St. Louis.
const NOW = "2026-11-22T15:00:00.000Z";

/** Every tool the service offers (spec section 4); each needs an example in EXAMPLES. */
const EXPECTED_TOOLS = {
  list_cities: "present",
  find_place: "present",
  get_place: "present",
  get_city: "present",
  get_events: "present",
  get_archive: "present",
  search_archives: "present",
  get_weather: "present",
  subscribe_city: "present",
  get_town_quote: "present",
  start_town_checkout: "present",
  get_listing_prices: "present",
  create_event_listing: "present",
  create_business_listing: "present",
  get_listing_order: "present",
  get_my_newsletter_choices: "present",
  set_newsletter_choices: "present",
} as const;
type ToolName = keyof typeof EXPECTED_TOOLS;

/** A valid input per tool, for the embedded defaults plus the editions seeded below. Writes included. */
const TOWNS = [["Tucson", "Arizona"], ["Denver", "Colorado"], ["Omaha", "Nebraska"], ["Spokane", "Washington"], ["Reno", "Nevada"], ["Fargo", "North Dakota"]];
const EXAMPLES: Record<ToolName, (n: number) => Record<string, unknown> | Promise<Record<string, unknown>>> = {
  list_cities: () => ({}),
  find_place: () => ({ q: "boise" }),
  get_place: () => ({ slug: "marfa-texas" }),
  get_city: () => ({ slug: "boise-idaho" }),
  get_events: () => ({ slug: "boise-idaho", from: "2026-11-20", to: "2026-11-27" }),
  get_archive: () => ({ slug: "boise-idaho", date: "2026-11-20" }),
  search_archives: () => ({ q: "frost", slug: "boise-idaho" }),
  get_weather: () => ({ slug: "boise-idaho" }),
  subscribe_city: (n) => ({ email: `generic-${n}@example.org`, slug: "boise-idaho" }),
  get_town_quote: () => ({ city: "Boise", state: "Idaho" }),
  // A town of its own per call (another test's counter must not pick a town already reserved).
  start_town_checkout: () => ({ action: "guest-checkout", city: TOWNS[leases % TOWNS.length][0], state: TOWNS[leases++ % TOWNS.length][1], email: "mcp-operator@example.com" }),
  get_listing_prices: () => ({}),
  create_event_listing: (n) => ({ ...EVENT, title: `${EVENT.title} ${n}` }),
  create_business_listing: (n) => ({ ...BUSINESS, title: `${BUSINESS.title} ${n}` }),
  get_listing_order: async (n) => {
    const res = await server.post("/api/listing-checkout", { ...EVENT, tier: "free", title: `Free event ${n}` });
    return { id: ((await res.json()) as { orderId: string }).orderId };
  },
  // The seeded reader's own manage-link token, as they would hand it to their assistant.
  get_my_newsletter_choices: () => ({ token: readerToken() }),
  set_newsletter_choices: () => ({ token: readerToken(), slug: "boise-idaho", deliveryTime: "07:00" }),
};
const readerToken = () => {
  const id = server.ctx.db.prepare("SELECT id FROM subscribers WHERE email = ?").pluck().get("reader@example.org") as number;
  return subscriberToken(server.ctx, id, "reader@example.org");
};

let sink: SmtpSink;
let meteo: OpenMeteoServer;
let server: TestServer;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  meteo = await startOpenMeteoServer();
  server = await startTestServer({
    SMTP_URL: sink.url, MAIL_SENDER: "off", NOW, SUBSCRIBE_RATE_LIMIT: "1000", OPEN_METEO_URL: meteo.url,
    POSTAL_ADDRESS: "citydaily, 100 Main St, Springfield, IL 62701",
  });
  const db = server.ctx.db;
  addSubscriber(db, "boise-idaho", "reader@example.org");
  addEdition(db, "boise-idaho", "2026-11-19", "Boise: a clear, cold Thursday");
  addEdition(db, "boise-idaho", "2026-11-20", "Boise: frost, then sun", "Frost on the foothills until ten, then sun.");
  await buildSite(server.ctx);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await meteo?.close();
  await sink?.stop();
});

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown> };
const call = (client: AnyClient, name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<ToolResult>;
const textOf = (r: ToolResult) => r.content.map((c) => c.text ?? "").join("");
const problemOf = (r: ToolResult) => {
  expect(r.isError).toBe(true);
  return JSON.parse(textOf(r)) as { code: string; resolution: string; status: number; type: string; issues?: Array<{ path: string; message: string }> };
};

let examples = 0;
let leases = 0;

describe.each(CLIENTS)("MCP %s", (revision, connect) => {
  let c: Connected;
  beforeAll(async () => {
    c = await connect(`${server.url}/mcp`);
  });
  afterAll(async () => {
    await c?.close();
  });

  it("negotiates its revision", () => {
    const client = c.client as { getNegotiatedProtocolVersion?: () => string | undefined; getServerVersion: () => { name: string } | undefined };
    expect(client.getServerVersion()?.name).toBe("citydaily");
    if (revision === "2026-07-28") expect(client.getNegotiatedProtocolVersion?.()).toBe("2026-07-28");
  });

  it("answers ping (2025 revisions) or server/discover (2026-07-28)", async () => {
    if (revision === "2025-11-25") {
      await expect(c.client.ping()).resolves.toBeDefined();
    } else {
      const discovered = await (c.client as { discover: () => Promise<{ supportedVersions?: string[]; serverInfo?: { name: string }; capabilities: Record<string, unknown> }> }).discover();
      expect(JSON.stringify(discovered)).toContain("2026-07-28");
      expect(discovered.capabilities).toMatchObject({ tools: {}, resources: {}, prompts: {} });
    }
  });

  it("lists the six read and subscribe tools with schemas and truthful annotations, in name order", async () => {
    const { tools } = await c.client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual([...names].sort());
    for (const name of ["list_cities", "get_city", "get_archive", "search_archives", "get_weather", "subscribe_city"]) expect(names).toContain(name);
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get("subscribe_city")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, openWorldHint: true });
    expect(byName.get("get_city")!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName.get("get_weather")!.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: true });
    // The tool's own choice of fields: an email and a slug; city and state optional; no web-form fields;
    // an optional idempotencyKey that makes a retry safe.
    const subscribeInput = byName.get("subscribe_city")!.inputSchema as { properties: Record<string, unknown>; required: string[] };
    expect([...subscribeInput.required].sort()).toEqual(["email", "slug"]);
    expect(Object.keys(subscribeInput.properties).sort()).toEqual(["city", "email", "idempotencyKey", "slug", "state"]);
    const searchInput = byName.get("search_archives")!.inputSchema as { properties: Record<string, { maxLength?: number; maximum?: number }> };
    expect(searchInput.properties.q.maxLength).toBe(200);
    expect(searchInput.properties.limit.maximum).toBe(50);
    // The query syntax is the `q` argument's own description (tools/list: one sentence a tool).
    expect((byName.get("search_archives")!.inputSchema as { properties: Record<string, { description: string }> }).properties.q.description).toMatch(/exact phrase.*OR.*-rain/);
    for (const t of tools) expect(t.outputSchema, t.name).toMatchObject({ type: "object" });
  });

  it("lists every operation that has an MCP projection, and only tools of the expected set", async () => {
    const { tools } = await c.client.listTools();
    const names = tools.map((t) => t.name).sort();
    expect(names).toEqual(toolOperations().map((op) => op.mcp.tool).sort());
    for (const name of names) expect(Object.keys(EXPECTED_TOOLS), `${name} is not a tool of the spec`).toContain(name);
    for (const [name, state] of Object.entries(EXPECTED_TOOLS)) if (state === "present") expect(names).toContain(name);
    // Staff-only and internal operations never become tools.
    for (const op of allOperations.filter((o) => o.auth === "admin" || o.visibility === "internal")) expect(names).not.toContain(op.mcp?.tool ?? op.operationId);
  });

  it("calls every listed tool with a valid example input (writes included)", async () => {
    const { tools } = await c.client.listTools();
    for (const tool of tools) {
      const example = EXAMPLES[tool.name as ToolName];
      expect(example, `no example input for ${tool.name}: add one to EXAMPLES`).toBeDefined();
      const result = await call(c.client, tool.name, await example!(examples++));
      expect(result.isError, `${tool.name}: ${textOf(result)}`).toBeFalsy();
      expect(result.structuredContent, tool.name).toBeDefined();
      expect(textOf(result).length, tool.name).toBeGreaterThan(0);
    }
  });

  it("buys through the tools: an event listing paid on its hosted page is published, as get_listing_order reports", async () => {
    const prices = (await call(c.client, "get_listing_prices", {})).structuredContent as { event: Array<{ id: string; priceCents: number }> };
    expect(prices.event.map((t) => [t.id, t.priceCents])).toEqual([["free", 0], ["standard", 1000], ["featured", 2500]]);
    const created = await call(c.client, "create_event_listing", { ...EVENT, tier: "featured", title: `Lantern walk ${examples++}` });
    const order = created.structuredContent as { orderId: string; checkoutUrl?: string; statusUrl: string };
    expect(order.orderId).toMatch(/^lo_[0-9a-f-]{36}$/);
    expect(order.checkoutUrl).toMatch(/^http/);
    expect((await call(c.client, "get_listing_order", { id: order.orderId })).structuredContent).toMatchObject({ status: "pending_payment", published: false });
    const paid = await payOnHostedPage(order.checkoutUrl!, "$25.00");
    expect(paid.status).toBe(200);
    expect((await call(c.client, "get_listing_order", { id: order.orderId })).structuredContent).toMatchObject({ status: "published", published: true });
    // A policy rejection is an answer, not an error.
    const rejected = await call(c.client, "create_business_listing", { ...BUSINESS, title: "Casino night betting", description: "Online gambling and sports betting." });
    expect(rejected.isError).toBeFalsy();
    expect(rejected.structuredContent).toMatchObject({ rejected: { rule: expect.any(String) } });
    expect((rejected.structuredContent as { checkoutUrl?: string }).checkoutUrl).toBeUndefined();
  });

  it("start_town_checkout reserves a town once: a second buyer gets the conflict code as a tool error", async () => {
    const town = { action: "guest-checkout", city: "Savannah", state: "Georgia", email: "mcp-operator@example.com" };
    const first = await call(c.client, "start_town_checkout", town);
    if (first.isError) {
      // The other client's run of this test reserved it first.
      expect(JSON.parse(textOf(first))).toMatchObject({ code: "conflict" });
    } else {
      expect(first.structuredContent).toMatchObject({ checkoutUrl: expect.stringMatching(/^http/), leaseId: expect.stringMatching(/^tl_/) });
    }
    const second = await call(c.client, "start_town_checkout", town);
    expect(second.isError).toBe(true);
    expect(JSON.parse(textOf(second))).toMatchObject({ code: "conflict", status: 409, resolution: PROBLEMS.conflict.mcp });
    const quote = (await call(c.client, "get_town_quote", { city: "Savannah", state: "Georgia" })).structuredContent as { quote: { available: boolean } };
    expect(quote.quote.available).toBe(false);
  });

  it("list_cities and get_city return the data as structured content and as JSON text", async () => {
    const cities = await call(c.client, "list_cities", {});
    expect(JSON.parse(textOf(cities))).toEqual(cities.structuredContent);
    expect(JSON.stringify(cities.structuredContent)).toContain("boise-idaho");
    const city = await call(c.client, "get_city", { slug: "boise-idaho" });
    expect(city.structuredContent).toMatchObject({ slug: "boise-idaho" });
    expect(JSON.stringify(city.structuredContent)).toContain("2026-11-20");
  });

  it("get_archive answers the edition's markdown as text and its fields as structured content", async () => {
    const r = await call(c.client, "get_archive", { slug: "boise-idaho", date: "2026-11-20" });
    expect(textOf(r)).toContain("# Boise: frost, then sun");
    expect(textOf(r)).toContain("Frost on the foothills until ten");
    expect(r.structuredContent).toMatchObject({ subject: "Boise: frost, then sun" });
  });

  it("search_archives finds the edition with a highlighted snippet", async () => {
    const r = await call(c.client, "search_archives", { q: "frost", slug: "boise-idaho" });
    const body = r.structuredContent as { results: Array<{ date: string; snippet: string }> };
    expect(body.results.map((x) => x.date)).toContain("2026-11-20");
    expect(body.results[0].snippet).toContain("<mark>");
  });

  it("get_weather answers today's live forecast in U.S. units", async () => {
    const r = await call(c.client, "get_weather", { slug: "boise-idaho" });
    expect(r.structuredContent).toMatchObject({ timezone: "America/Boise" });
    expect(typeof (r.structuredContent as { high: unknown }).high).toBe("number");
  });

  it("errors are tool errors with the HTTP API's problem code and a resolution that speaks MCP", async () => {
    const missing = problemOf(await call(c.client, "get_city", { slug: "atlantis-idaho" }));
    expect(missing).toMatchObject({ code: "city_not_found", status: 404, resolution: PROBLEMS.city_not_found.mcp });
    expect(missing.type).toBe(`${server.url}/developers#error-city_not_found`);
    // The same code over HTTP, where the resolution names a path; over MCP it names the tools.
    const http = await (await server.get("/api/city/atlantis-idaho")).json() as { code: string; resolution: string };
    expect(http.code).toBe(missing.code);
    expect(http.resolution).toContain("/api/cities");
    expect(missing.resolution).toContain("find_place");
    expect(missing.resolution).not.toMatch(/\/api\/|header/i);

    expect(problemOf(await call(c.client, "get_archive", { slug: "boise-idaho", date: "2026-11-21" })).code).toBe("edition_not_found");
    const bad = problemOf(await call(c.client, "search_archives", { q: "x", limit: 500 }));
    expect(bad.code).toBe("validation_error");
    expect(bad.issues!.map((i) => i.path).sort()).toEqual(["limit", "q"]);
    const badSubscribe = problemOf(await call(c.client, "subscribe_city", { email: "nope", city: "Boise", state: "Idaho", slug: "boise-idaho" }));
    expect(badSubscribe.code).toBe("validation_error");
    expect(badSubscribe.issues!.map((i) => i.path)).toEqual(["email"]);
    expect(badSubscribe.resolution).toBe(PROBLEMS.validation_error.mcp);
    // City and state are optional; given, they are checked against the slug (one wrong: "does").
    const wrongCity = problemOf(await call(c.client, "subscribe_city", { email: "mismatch@example.org", city: "Nampa", slug: "boise-idaho" }));
    expect(wrongCity.issues!.map((i) => i.path)).toEqual(["city"]);
    expect((wrongCity as unknown as { detail: string }).detail).toBe("city does not match the slug boise-idaho.");
    const wrongBoth = problemOf(await call(c.client, "subscribe_city", { email: "mismatch@example.org", city: "Nampa", state: "Utah", slug: "boise-idaho" }));
    expect((wrongBoth as unknown as { detail: string }).detail).toBe("state and city do not match the slug boise-idaho.");
    // Form-only fields are not the tool's: the SDK-independent validation refuses none, but they never reach the service.
    expect(problemOf(await call(c.client, "subscribe_city", { email: "x@example.org", slug: "atlantis-nowhere" })).issues![0].path).toBe("slug");
  });

  it("speaks MCP in every tool description: tools and fields, never HTTP paths, statuses or headers", async () => {
    const { tools } = await c.client.listTools();
    for (const t of tools) {
      expect(t.description, t.name).not.toMatch(/\bHTTP\b|\bGET |\bPOST |\/api\/|Retry-After|Cache-Control|\b(400|404|409|429)\b/);
      // Complete annotations: every hint stated, none left to the client's pessimistic defaults.
      // The four hints; the display name is the tool's own `title`, not repeated in the annotations.
      expect(Object.keys(t.annotations ?? {}).sort(), t.name).toEqual(["destructiveHint", "idempotentHint", "openWorldHint", "readOnlyHint"]);
      expect(t.title, t.name).toBeTruthy();
      // Schemas strict validators accept: `examples` (not `example`), no `type` arrays.
      const schemas = JSON.stringify([t.inputSchema, t.outputSchema]);
      expect(schemas, t.name).not.toContain('"example":');
      expect(schemas, t.name).not.toMatch(/"type":\[/);
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(JSON.stringify(byName.get("get_city")!.inputSchema)).toContain('"examples":["st-louis-missouri"]');
  });

  it("keeps tools/list to what a model needs: no safe-integer bounds, no pattern repeating a format, lean output schemas, strict inputs", async () => {
    const { tools } = await c.client.listTools();
    const text = JSON.stringify({ tools });
    // 51.9 KB for 13 tools before it was trimmed (52 copies of zod's ±9007199254740991, 3,992 bytes a tool); 52.6 KB for
    // 15 after, with get_place, get_events, tides and the town's sources (3,508 a tool); 21.7 KB with one-sentence
    // descriptions and outputs outlined to their fields (1,450 a tool; docs/mcp.md, test/integration/mcp-tool-list.test.ts).
    expect(Buffer.byteLength(text) / tools.length).toBeLessThan(1_600);
    expect(text).not.toContain("9007199254740991");
    expect(text).not.toContain("[2468][048]"); // the date regex zod writes next to `format: date`
    for (const t of tools) {
      expect(t.inputSchema, t.name).toMatchObject({ type: "object", additionalProperties: false });
      const output = JSON.stringify(t.outputSchema);
      expect(output, t.name).not.toMatch(/"(minimum|maximum|maxLength|pattern|examples|\$schema)":/);
    }
    // Output schemas are the result's fields and types (test/integration/mcp-tool-list.test.ts); the
    // tool's description says what a model counts from.
    const city = tools.find((t) => t.name === "get_city")!;
    expect((city.outputSchema as { properties: Record<string, unknown> }).properties.localDate).toEqual({ type: "string" });
    expect(city.description).toContain("`localDate`");
  });

  it("completes slug arguments of prompts and resource templates (completion/complete)", async () => {
    const complete = (c.client as { complete: (p: unknown) => Promise<{ completion: { values: string[] } }> }).complete.bind(c.client);
    const prompt = await complete({ ref: { type: "ref/prompt", name: "brief_me_on_a_town" }, argument: { name: "slug", value: "boise-id" } });
    expect(prompt.completion.values[0]).toBe("boise-idaho");
    const template = await complete({ ref: { type: "ref/resource", uri: `${server.url}/{slug}/{date}.md` }, argument: { name: "slug", value: "marfa" } });
    expect(template.completion.values).toContain("marfa-texas");
    // Nothing typed yet: the cities that have a newsletter.
    const empty = await complete({ ref: { type: "ref/prompt", name: "list_my_business" }, argument: { name: "slug", value: "" } });
    expect(empty.completion.values).toContain("boise-idaho");
  });

  it("tells the truth about list changes: none are announced, and the lists may be kept", async () => {
    const caps = (c.client as { getServerCapabilities: () => Record<string, { listChanged?: boolean }> | undefined }).getServerCapabilities()!;
    for (const kind of ["tools", "resources", "prompts"]) expect(caps[kind]?.listChanged ?? false, kind).toBe(false);
  });

  it("every prompt's plan runs: each tool it names, called with the arguments it suggests, answers without error", async () => {
    const { tools } = await c.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    // What a person would answer when the prompt says to ask them.
    const answers: Record<string, unknown> = { ...BUSINESS, tier: "free", title: undefined, slug: undefined };
    for (const prompt of PROMPTS) {
      const args = { slug: "boise-idaho", business: `Boise Bike Shop ${examples++}` };
      const plan = prompt.plan(args, server.url);
      const { messages } = await c.client.getPrompt({ name: prompt.name, arguments: Object.fromEntries(Object.keys(prompt.argsSchema.shape).map((k) => [k, args[k as keyof typeof args]])) });
      const text = (messages[0].content as { text: string }).text;
      const results: Array<Record<string, unknown>> = [];
      for (const [i, step] of plan.steps.entries()) {
        const t = byName.get(step.tool);
        expect(t, `${prompt.name} names ${step.tool}, which is not a tool`).toBeDefined();
        expect(text, prompt.name).toContain(`Call ${step.tool} with ${JSON.stringify(step.args)}`);
        const input: Record<string, unknown> = { ...step.args };
        for (const [k, path] of Object.entries(step.from?.args ?? {})) {
          input[k] = path.split(".").reduce<unknown>((v, key) => (v as Record<string, unknown>)?.[key], results[step.from!.step - 1]);
        }
        for (const k of step.ask ?? []) {
          expect(text, `${prompt.name} asks for ${k}`).toContain(`\`${k}\``);
          input[k] = answers[k];
        }
        // Every field the tool requires is suggested, taken from an earlier answer or asked for; none is made up.
        const schema = t!.inputSchema as { required?: string[]; properties: Record<string, unknown> };
        for (const k of schema.required ?? []) expect(input[k], `${prompt.name} step ${i + 1}: ${step.tool} needs ${k}`).toBeDefined();
        for (const k of Object.keys(input)) expect(Object.keys(schema.properties), `${prompt.name}: ${step.tool} has no ${k}`).toContain(k);
        const result = await call(c.client, step.tool, input);
        expect(result.isError, `${prompt.name} step ${i + 1} ${step.tool}: ${textOf(result)}`).toBeFalsy();
        results.push(result.structuredContent ?? {});
      }
    }
  });

  it("lists the resources and templates in a fixed order and reads each", async () => {
    const { resources } = await c.client.listResources();
    expect(resources.map((r) => r.name)).toEqual(["overview", "openapi", "city-directory", "recent-editions", "developer-docs", "view-edition", "view-city", "view-order"]);
    const texts = new Map<string, string>();
    for (const r of resources.filter((x) => !x.uri.startsWith("ui://"))) {
      const { contents } = await c.client.readResource({ uri: r.uri });
      const text = (contents[0] as { text: string }).text;
      expect(text.length, r.uri).toBeGreaterThan(50);
      texts.set(r.name, text);
    }
    expect(texts.get("overview")).toMatch(/^# citydaily/);
    expect(texts.get("overview")).toContain(`${server.url}/mcp`);
    expect(JSON.parse(texts.get("openapi")!).openapi).toBe("3.1.0");
    expect(texts.get("city-directory")).toContain("boise-idaho");
    expect(texts.get("recent-editions")).toContain("Boise: frost, then sun");
    expect(texts.get("developer-docs")).toContain("## MCP");

    const { resourceTemplates } = await c.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([`${server.url}/{slug}/{date}.md`, `${server.url}/{slug}.md`]);
    const edition = await c.client.readResource({ uri: `${server.url}/boise-idaho/2026-11-19.md` });
    expect((edition.contents[0] as { text: string }).text).toContain("Boise: a clear, cold Thursday");
    // Immutable reads say so to 2026-07-28 clients: a dated edition for a day, an app view for an hour.
    if (revision === "2026-07-28") {
      expect(edition).toMatchObject({ ttlMs: 86_400_000, cacheScope: "public" });
      expect(await c.client.readResource({ uri: "ui://citydaily/city.html" })).toMatchObject({ ttlMs: 3_600_000, cacheScope: "public" });
      expect(await c.client.readResource({ uri: `${server.url}/llms.txt` })).toMatchObject({ ttlMs: 60_000 });
    }
    const city = await c.client.readResource({ uri: `${server.url}/boise-idaho.md` });
    expect((city.contents[0] as { text: string }).text).toContain("2026-11-20");
    await expect(c.client.readResource({ uri: `${server.url}/boise-idaho/2026-11-21.md` })).rejects.toThrow(/edition_not_found/);
  });

  it("every tool with an MCP Apps view declares it, and the view is served: well-formed, self-contained HTML", async () => {
    const { tools } = await c.client.listTools();
    const withViews = tools.filter((t) => (t._meta as { ui?: { resourceUri?: string } } | undefined)?.ui?.resourceUri);
    expect(withViews.map((t) => t.name).sort()).toEqual(["get_archive", "get_city", "get_listing_order"]);
    const { resources } = await c.client.listResources();
    const validator = new HtmlValidate({ extends: ["html-validate:recommended"] });
    for (const t of withViews) {
      const uri = (t._meta as { ui: { resourceUri: string } }).ui.resourceUri;
      // The older hosts' key too (the extension's helper writes both).
      expect((t._meta as Record<string, unknown>)["ui/resourceUri"], t.name).toBe(uri);
      expect(uri, t.name).toMatch(/^ui:\/\/citydaily\//);
      expect(resources.find((r) => r.uri === uri)?.mimeType, uri).toBe("text/html;profile=mcp-app");
      const { contents } = await c.client.readResource({ uri });
      expect(contents[0]).toMatchObject({ uri, mimeType: "text/html;profile=mcp-app" });
      const html = (contents[0] as { text: string }).text;
      const report = await validator.validateString(html);
      expect(report.results.flatMap((r) => r.messages.map((m) => `${m.ruleId}: ${m.message}`)), uri).toEqual([]);
      // Nothing loaded from outside: no external script, style, image or frame, no @import.
      expect(html, uri).not.toMatch(/<(script|img|iframe|link)[^>]+(src|href)=|@import|url\(/i);
    }
  });

  it("lists the prompts and gets each one", async () => {
    const { prompts } = await c.client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(["brief_me_on_a_town", "find_events_this_week", "list_my_business"]);
    for (const p of prompts) {
      const args: Record<string, string> = { slug: "boise-idaho", business: "Boise Bike Shop" };
      const { messages } = await c.client.getPrompt({ name: p.name, arguments: Object.fromEntries((p.arguments ?? []).map((a) => [a.name, args[a.name]])) });
      const text = (messages[0].content as { text: string }).text;
      expect(text, p.name).toContain("boise-idaho");
    }
    const brief = await c.client.getPrompt({ name: "brief_me_on_a_town", arguments: { slug: "boise-idaho" } });
    expect((brief.messages[0].content as { text: string }).text).toContain("get_weather");
  });
});

describe("subscribe_city over MCP", () => {
  it("shows the new subscriber to the next get_city, though get_city's results are kept", async () => {
    const c = await CLIENTS[0][1](`${server.url}/mcp`);
    const count = async () => ((await call(c.client, "get_city", { slug: "boise-idaho" })).structuredContent as { subscriberCount: number }).subscriberCount;
    try {
      const before = await count();
      expect(await count()).toBe(before);
      const r = await call(c.client, "subscribe_city", { email: "kept-read@example.org", city: "Boise", state: "Idaho", slug: "boise-idaho" });
      expect(r.isError).toBeFalsy();
      expect(await count()).toBe(before + 1);
    } finally {
      await c.close();
    }
  });

  it("stores the subscriber and delivers a real welcome email, like POST /api/subscribe", async () => {
    const c = await CLIENTS[0][1](`${server.url}/mcp`);
    try {
      const r = await call(c.client, "subscribe_city", { email: "mcp-reader@example.org", city: "St. Louis", state: "Missouri", slug: "st-louis-missouri" });
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent).toMatchObject({ success: true });
      const rows = server.ctx.db.prepare("SELECT s.status FROM subscribers s JOIN places p ON p.geoid = s.place_geoid WHERE s.email = ? AND p.slug = ?").all("mcp-reader@example.org", "st-louis-missouri");
      expect(rows).toEqual([{ status: "active" }]);
      const before = sink.count;
      await sendPendingMail(server.ctx);
      await sink.waitForCount(before + 1);
      const welcome = sink.to("mcp-reader@example.org").find((m) => m.parsed.subject === "Welcome to the St. Louis, Missouri daily");
      expect(welcome, "welcome email").toBeDefined();
      expect(welcome!.parsed.text).toContain("St. Louis");
    } finally {
      await c.close();
    }
  });
});
