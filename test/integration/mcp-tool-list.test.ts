import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subscriberToken } from "../../src/services/readers/unsubscribe.ts";
import { EVENT, BUSINESS } from "../helpers/commerce.ts";
import { CLIENTS, type Connected } from "../helpers/mcp-clients.ts";
import { startOpenMeteoServer, type OpenMeteoServer } from "../helpers/open-meteo-server.ts";
import { addEdition, addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// What a model pays before it asks anything: the public tools/list, measured as the bytes of the
// JSON-RPC `result` on the wire, for both protocol revisions. It was 52,621 bytes for 15 tools; the
// budget is 24 KB (docs/mcp.md has the table). Lean must not mean broken: every tool is still called,
// and each result's structured content still passes its (outlined) output schema.

const BUDGET_BYTES = 24_000;

let server: TestServer;
let meteo: OpenMeteoServer;

beforeAll(async () => {
  meteo = await startOpenMeteoServer();
  server = await startTestServer({ MAIL_SENDER: "off", NOW: "2026-11-22T15:00:00.000Z", SUBSCRIBE_RATE_LIMIT: "1000", OPEN_METEO_URL: meteo.url });
  addSubscriber(server.ctx.db, "boise-idaho", "reader@example.org");
  addEdition(server.ctx.db, "boise-idaho", "2026-11-20", "Boise: frost, then sun", "Frost on the foothills until ten, then sun.");
});
afterAll(async () => {
  await server?.stop();
  await meteo?.close();
});

type Tool = { name: string; description?: string; inputSchema: Record<string, unknown>; outputSchema?: Record<string, unknown> };

/** A client connected with a fetch that keeps the raw body of the tools/list answer. */
async function listed(connect: (url: string, f?: typeof fetch) => Promise<Connected>): Promise<{ c: Connected; tools: Tool[]; bytes: number }> {
  let body = "";
  const spy: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if (typeof init?.body === "string" && init.body.includes('"tools/list"')) body = await res.clone().text();
    return res;
  };
  const c = await connect(`${server.url}/mcp`, spy);
  const { tools } = await c.client.listTools();
  // One JSON body (2025-era, api/mcp/endpoint.ts answers it as JSON) or one SSE event (2026-07-28).
  const json = body.trimStart().startsWith("{") ? body : body.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("");
  const result = (JSON.parse(json) as { result: unknown }).result;
  return { c, tools: tools as Tool[], bytes: Buffer.byteLength(JSON.stringify(result)) };
}

/** One sentence: no line breaks, a full stop at the end, and no sentence starting inside it. */
const oneSentence = (text: string) => !/\n/.test(text) && /\.$/.test(text) && !/[.!?][)"'`]*\s+[("'`]*[A-Z]/.test(text);

// A town of its own per revision: the first run's reservation holds its town.
const LEASED = { "2025-11-25": "Nampa", "2026-07-28": "Meridian" } as const;
type Previous = Record<string, Record<string, unknown>> & { revision?: never };
const EXAMPLES: Record<string, (previous: Previous, revision: keyof typeof LEASED) => Record<string, unknown>> = {
  list_cities: () => ({}),
  find_place: () => ({ q: "boise" }),
  get_place: () => ({ slug: "marfa-texas" }),
  get_city: () => ({ slug: "boise-idaho" }),
  get_events: () => ({ slug: "boise-idaho" }),
  get_archive: () => ({ slug: "boise-idaho" }),
  search_archives: () => ({ q: "frost", slug: "boise-idaho" }),
  get_weather: () => ({ slug: "boise-idaho" }),
  subscribe_city: () => ({ email: `lean-${Math.random().toString(36).slice(2)}@example.org`, slug: "boise-idaho" }),
  get_town_quote: () => ({ city: "Boise", state: "Idaho" }),
  start_town_checkout: (_, revision) => ({ action: "guest-checkout", city: LEASED[revision], state: "Idaho", email: `lease-${Math.random().toString(36).slice(2)}@example.org` }),
  get_listing_prices: () => ({}),
  create_event_listing: () => ({ ...EVENT, title: `Lean list fair ${Math.random().toString(36).slice(2, 6)}` }),
  create_business_listing: () => ({ ...BUSINESS, title: `Lean list bakery ${Math.random().toString(36).slice(2, 6)}` }),
  get_listing_order: (previous) => ({ id: previous.create_event_listing!.orderId }),
  get_my_newsletter_choices: () => ({ token: readerToken() }),
  set_newsletter_choices: () => ({ token: readerToken(), slug: "boise-idaho", frequency: "weekly", weeklyDay: "sunday" }),
};
/** The seeded reader's manage-link token, as they would hand it to their assistant. */
const readerToken = () => {
  const id = server.ctx.db.prepare("SELECT id FROM subscribers WHERE email = ?").pluck().get("reader@example.org") as number;
  return subscriberToken(server.ctx, id, "reader@example.org");
};

const EXPECTED_COUNT = Object.keys(EXAMPLES).length;

describe.each(CLIENTS)("the public tools/list (%s)", (revision, connect) => {
  let c: Connected, tools: Tool[], bytes: number;
  beforeAll(async () => {
    ({ c, tools, bytes } = await listed(connect));
    const each = tools.map((t) => `${t.name} ${Buffer.byteLength(JSON.stringify(t))}`).join(", ");
    console.log(`tools/list ${revision}: ${tools.length} tools, ${bytes} bytes (${Math.round(bytes / tools.length)} a tool): ${each}`);
  });
  afterAll(async () => {
    await c?.close();
  });

  it(`takes at most ${BUDGET_BYTES.toLocaleString("en-US")} bytes for all ${EXPECTED_COUNT} tools`, () => {
    expect(tools).toHaveLength(EXPECTED_COUNT);
    expect(bytes).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  it("describes every tool in one sentence, and every argument it takes", () => {
    for (const t of tools) {
      expect(oneSentence(t.description ?? ""), `${t.name}: ${t.description}`).toBe(true);
      expect(t.description!.length, t.name).toBeLessThan(450);
      for (const [name, schema] of Object.entries((t.inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>)) {
        // Self-explanatory arguments aside, each says what it is (directly or through its named type).
        if (["action", "city", "description", "tier", "slug"].includes(name)) continue;
        expect(schema.description, `${t.name}.${name}`).toEqual(expect.any(String));
      }
      // What a model does not need: the dialect, defaults, and the safe-integer bounds zod writes.
      expect(JSON.stringify(t.inputSchema), t.name).not.toMatch(/"\$schema"|"default"|9007199254740991/);
    }
  });

  it("outlines each result to its fields, and every tool is still callable with its result passing that outline", async () => {
    const ajv = new Ajv2020({ strict: false });
    const previous: Previous = {};
    // The listing order last: it reads the order a listing tool made.
    const order = [...tools].sort((a, b) => Number(a.name === "get_listing_order") - Number(b.name === "get_listing_order"));
    for (const t of order) {
      const output = t.outputSchema!;
      expect(output, t.name).toMatchObject({ type: "object", properties: expect.any(Object) });
      expect(Object.keys(output).sort(), t.name).toEqual(output.required ? ["properties", "required", "type"] : ["properties", "type"]);
      // Each field: its type, enum or const (each branch's, for a union), nothing nested.
      for (const [name, field] of Object.entries(output.properties as Record<string, Record<string, unknown>>)) {
        for (const f of [field, ...((field.anyOf ?? []) as Array<Record<string, unknown>>)]) {
          expect(Object.keys(f).every((k) => ["type", "enum", "const", "anyOf"].includes(k)), `${t.name}.${name}: ${JSON.stringify(f)}`).toBe(true);
        }
      }
      const example = EXAMPLES[t.name];
      expect(example, `no example for ${t.name}`).toBeDefined();
      // Both SDK clients validate structured content against the advertised schema themselves.
      const result = await c.client.callTool({ name: t.name, arguments: example!(previous, revision) }) as { isError?: boolean; content: Array<{ text?: string }>; structuredContent?: Record<string, unknown> };
      expect(result.isError, `${t.name}: ${result.content[0]?.text}`).toBeFalsy();
      expect(result.structuredContent, t.name).toBeDefined();
      expect(ajv.validate(output, result.structuredContent), `${t.name}: ${ajv.errorsText()}`).toBe(true);
      // Every field the result has is one the outline names.
      expect(Object.keys(output.properties as object), t.name).toEqual(expect.arrayContaining(Object.keys(result.structuredContent!)));
      previous[t.name] = result.structuredContent!;
    }
  });
});
