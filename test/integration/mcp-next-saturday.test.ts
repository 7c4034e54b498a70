import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addFeed } from "../../src/services/sources/feeds.ts";
import { addDays } from "../../src/lib/time.ts";
import { payOnHostedPage } from "../helpers/commerce.ts";
import { CLIENTS, type AnyClient, type Connected } from "../helpers/mcp-clients.ts";
import { addEdition, addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { CALENDAR_TYPE, libraryCalendar, startTownSourcesServer, type TownSourcesServer } from "../helpers/town-sources-server.ts";

// "What's on in Ely next Saturday, and put our swap meet on it", as an agent does it with each
// official MCP client: get_events for one local date, then create_event_listing with an
// idempotencyKey; the retry after a (pretend) timeout gets the same order and payment link, the
// same key with other arguments is a clear tool error, and the key means the same over HTTP.

const NOW = "2026-11-24T14:00:00.000Z"; // Tuesday morning in Ely (Pacific time)
const SLUG = "ely-nevada";
let src: TownSourcesServer;
let server: TestServer;

beforeAll(async () => {
  src = await startTownSourcesServer();
  src.setFeed("/library.ics", { body: libraryCalendar({ weekStart: "2026-11-17" }), contentType: CALENDAR_TYPE });
  server = await startTestServer({ MAIL_SENDER: "off", NOW, SUBSCRIBE_RATE_LIMIT: "1000", FEEDS_ALLOW_PRIVATE: "true" });
  addSubscriber(server.ctx.db, SLUG, "reader@example.org");
  addEdition(server.ctx.db, SLUG, "2026-11-24", "Ely: cold and clear");
  await addFeed(server.ctx, SLUG, `${src.url}/library.ics`, "staff");
});
afterAll(async () => {
  await server?.stop();
  await src?.close();
});

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, any>; _meta?: Record<string, unknown> };
const call = (client: AnyClient, name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<ToolResult>;
const textOf = (r: ToolResult) => r.content.map((c) => c.text ?? "").join("");
const problemOf = (r: ToolResult) => {
  expect(r.isError).toBe(true);
  return JSON.parse(textOf(r)) as { code: string; status: number; detail: string; resolution: string; issues?: Array<{ path: string; message: string }> };
};
const orderCount = () => server.ctx.db.prepare("SELECT COUNT(*) FROM listing_orders").pluck().get() as number;

/** The date of the Saturday after a local date (YYYY-MM-DD), as an agent works it out from `today`. */
function nextSaturday(today: string): string {
  const weekday = new Date(`${today}T12:00:00Z`).getUTCDay();
  return addDays(today, ((6 - weekday + 7) % 7) || 7);
}

describe.each(CLIENTS)("MCP %s: Ely next Saturday", (revision, connect) => {
  let c: Connected;
  beforeAll(async () => {
    c = await connect(`${server.url}/mcp`);
  });
  afterAll(async () => {
    await c?.close();
  });

  it("get_events answers for the town's local dates, then a listing bought once however often the call is retried", async () => {
    const tools = (await c.client.listTools()).tools;
    const create = tools.find((t) => t.name === "create_event_listing")!;
    expect(Object.keys((create.inputSchema as { properties: object }).properties)).toContain("idempotencyKey");
    expect(create.description).toMatch(/idempotencyKey/);

    // Which day is "next Saturday" is the town's question: its today comes with the answer.
    const week = await call(c.client, "get_events", { slug: SLUG });
    expect(week.isError, textOf(week)).toBeFalsy();
    expect(week.structuredContent).toMatchObject({ timeZone: "America/Los_Angeles", today: "2026-11-24", from: "2026-11-24", to: "2026-12-01" });
    const saturday = nextSaturday(week.structuredContent!.today);
    expect(saturday).toBe("2026-11-28");
    const before = await call(c.client, "get_events", { slug: SLUG, from: saturday, to: saturday });
    expect(before.structuredContent!.events.map((e: any) => [e.title, e.startsAt, e.allDay, e.source])).toEqual(
      expect.arrayContaining([["Friends of the Library Book Sale", "2026-11-28", true, "White Pine County Library"]]),
    );
    expect(before.structuredContent!.events.every((e: any) => e.startsAt.startsWith(saturday))).toBe(true);

    const key = crypto.randomUUID();
    const listing = {
      slug: SLUG, tier: "standard", title: `Saturday Swap Meet (${revision})`, description: "Tools, toys and tack; coffee from the Boy Scouts.",
      url: "https://swapmeet.example.org/", startsAt: `${saturday}T09:00`, endsAt: `${saturday}T13:00`, venue: "White Pine County Fairgrounds",
      buyerEmail: "swap@example.org", idempotencyKey: key,
    };
    const orders = orderCount();
    const first = await call(c.client, "create_event_listing", listing);
    expect(first.isError, textOf(first)).toBeFalsy();
    const { orderId, checkoutUrl } = first.structuredContent!;
    expect(checkoutUrl).toMatch(/\/checkout\//);
    expect(first._meta?.["citydaily/idempotentReplayed"]).toBeUndefined();

    // The agent timed out and calls again: the same order and the same payment link, nothing new.
    const retry = await call(c.client, "create_event_listing", listing);
    expect(retry.isError, textOf(retry)).toBeFalsy();
    expect(retry.structuredContent).toEqual(first.structuredContent);
    expect(retry._meta?.["citydaily/idempotentReplayed"]).toBe(true);
    expect(orderCount()).toBe(orders + 1);

    // The same key with other arguments is a clear error that says what to do.
    const changed = problemOf(await call(c.client, "create_event_listing", { ...listing, title: "Sunday Swap Meet" }));
    expect(changed.code).toBe("idempotency_key_reused");
    expect(changed.status).toBe(422);
    expect(changed.resolution).toMatch(/new `idempotencyKey`/);
    expect(orderCount()).toBe(orders + 1);
    const malformed = problemOf(await call(c.client, "create_event_listing", { ...listing, idempotencyKey: "not a key" }));
    expect(malformed.code).toBe("validation_error");
    expect(malformed.issues?.map((i) => i.path)).toEqual(["idempotencyKey"]);

    // One mechanism for every transport: the key over HTTP answers the same order.
    const { idempotencyKey: _, ...body } = listing;
    const overHttp = await server.post("/api/listing-checkout", body, { headers: { "Idempotency-Key": key } });
    expect(overHttp.headers.get("idempotent-replayed")).toBe("true");
    expect((await overHttp.json()).orderId).toBe(orderId);

    // Paid, it is on Saturday's calendar in Ely's time, labelled sponsored.
    expect((await payOnHostedPage(checkoutUrl, "$10.00")).status).toBe(200);
    const after = await call(c.client, "get_events", { slug: SLUG, from: saturday, to: saturday });
    expect(after.structuredContent!.events).toContainEqual(expect.objectContaining({
      id: orderId, title: listing.title, startsAt: `${saturday}T09:00`, endsAt: `${saturday}T13:00`, sponsored: true, venue: listing.venue,
    }));
  });
});
