import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROBLEMS } from "../../src/contract/problems.ts";
import { buildSite } from "../../src/services/site/publish.ts";
import { EVENT } from "../helpers/commerce.ts";
import { CLIENTS, type AnyClient, type Connected } from "../helpers/mcp-clients.ts";
import { addEdition, addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";

// Tasks an agent was set to try the service with, done through the real v1 and v2 SDK clients. The clock
// is 05:00 UTC on Saturday 2026-11-28: still Friday evening in Ely, Nevada (Pacific) and Marfa, Texas
// (Central), so a model counting "next Saturday" from its own UTC clock gets it wrong.
const NOW = "2026-11-28T05:00:00.000Z";

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown> };
type Problem = { code: string; status: number; detail: string; resolution: string; reason?: string; howToStart?: string; place?: Record<string, unknown>; suggestions?: string[]; issues?: Array<{ path: string; message: string }> };
const call = (client: AnyClient, name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<ToolResult>;
const textOf = (r: ToolResult) => r.content.map((c) => c.text ?? "").join("");
const problemOf = (r: ToolResult): Problem => {
  expect(r.isError, textOf(r)).toBe(true);
  return JSON.parse(textOf(r)) as Problem;
};
const ok = (r: ToolResult) => {
  expect(r.isError, textOf(r)).toBeFalsy();
  return r.structuredContent as Record<string, unknown>;
};

/** "Next Saturday" from a town's own date and weekday: the Saturday after today (today excluded). */
function nextSaturday(localDate: string, weekday: string): string {
  const days = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
  const ahead = ((6 - days.indexOf(weekday) + 7) % 7) || 7;
  const d = new Date(`${localDate}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + ahead);
  return d.toISOString().slice(0, 10);
}

let sink: SmtpSink;
let server: TestServer;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  server = await startTestServer({ SMTP_URL: sink.url, MAIL_SENDER: "off", NOW, SUBSCRIBE_RATE_LIMIT: "1000" });
  addSubscriber(server.ctx.db, "boise-idaho", "reader@example.org");
  addEdition(server.ctx.db, "boise-idaho", "2026-11-26", "Boise: Thanksgiving frost");
  addEdition(server.ctx.db, "boise-idaho", "2026-11-27", "Boise: a bright Friday", "Sun all day after a cold start.");
  await buildSite(server.ctx);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await sink?.stop();
});

// Each revision's run uses its own Ely, so each starts in a town without a newsletter.
const ELY = { "2025-11-25": { slug: "ely-nevada", name: "Ely, Nevada", zone: "America/Los_Angeles" }, "2026-07-28": { slug: "ely-minnesota", name: "Ely, Minnesota", zone: "America/Chicago" } } as const;

describe.each(CLIENTS)("agent tasks over MCP %s", (revision, connect) => {
  let c: Connected;
  beforeAll(async () => {
    c = await connect(`${server.url}/mcp`);
  });
  afterAll(async () => {
    await c?.close();
  });

  it("\"What's the weather in Marfa, Texas, and what's on this week?\": an honest answer with the place's facts and how to start its newsletter", async () => {
    const found = ok(await call(c.client, "find_place", { q: "marfa texas" })) as { results: Array<Record<string, unknown>> };
    expect(found.results[0]).toMatchObject({ slug: "marfa-texas", name: "Marfa", state: "Texas", hasNewsletter: false, sellsListings: false });

    // The edition tools keep the seed's rule and code, and now say which case it is and what to do.
    for (const [tool, args] of [["get_weather", {}], ["get_city", {}], ["get_archive", {}], ["search_archives", { q: "market" }]] as const) {
      const p = problemOf(await call(c.client, tool, { slug: "marfa-texas", ...args }));
      expect(p, tool).toMatchObject({ code: "city_not_found", status: 404, reason: "no_newsletter", place: { slug: "marfa-texas", name: "Marfa", state: "Texas", hasNewsletter: false, sellsListings: false } });
      expect(p.detail, tool).toContain("Marfa, Texas is a real U.S. place, but it has no newsletter yet");
      expect(p.howToStart, tool).toContain("Its first subscriber starts the town's newsletter");
      expect(p.detail, tool).toContain("subscribe_city");
      expect(p.detail, tool).toMatch(/only for the address of a reader who asked to subscribe themselves/);
      expect(p.detail, tool).toContain("get_place");
      expect(p.detail + p.resolution, tool).not.toMatch(/\/api\/|\bPOST\b|\bGET\b/);
    }

    // What the service knows without fetching anything: the town's clock, sun, holidays and figures.
    const place = ok(await call(c.client, "get_place", { slug: "marfa-texas" })) as Record<string, any>;
    expect(place).toMatchObject({
      slug: "marfa-texas", name: "Marfa", state: "Texas", county: "Presidio County", hasNewsletter: false, sellsListings: false,
      timezone: "America/Chicago", timezoneName: "Central Time", localDate: "2026-11-27", weekday: "Friday", localTime: "23:00",
      url: `${server.url}/marfa-texas`,
    });
    expect(place.sun.sunrise).toMatch(/^7:\d\d AM$/);
    expect(place.sun.sunset).toMatch(/^5:\d\d PM$/);
    // Texas keeps the day after Thanksgiving as a state holiday.
    expect(place.holidays.today.map((h: { name: string }) => h.name).join(" ")).toMatch(/Thanksgiving/);
    expect(place.census.population).toBe(2179);
    // The town's page as a resource and as the site's markdown twin: the same facts, for any place.
    const resource = ((await c.client.readResource({ uri: `${server.url}/marfa-texas.md` })).contents[0] as { text: string }).text;
    for (const text of [resource, await (await server.get("/marfa-texas.md")).text(), await (await server.get("/marfa-texas", { headers: { Accept: "text/markdown" } })).text()]) {
      expect(text).toContain("# Marfa, Texas");
      expect(text).toContain("It has no citydaily newsletter yet");
      expect(text).toContain("Local date and time: Friday, November 27, 2026, 23:00 Central Time (America/Chicago)");
      expect(text).toMatch(/Sunrise 7:\d\d AM, sunset 5:\d\d PM/);
      expect(text).toContain("| Population | 2,179 |");
    }
    // The page itself shows the same day.
    const html = await (await server.get("/marfa-texas")).text();
    expect(html).toContain("Today in Marfa");
    expect(html).toContain("Friday, November 27, 2026, 11:00 PM Central Time");
    expect(html).toContain("Day after Thanksgiving (today)");
    const city = ((await c.client.readResource({ uri: `${server.url}/boise-idaho.md` })).contents[0] as { text: string }).text;
    expect(city).toMatch(/^---\ntimezone: America\/Boise\nlocal_date: 2026-11-27\nweekday: Friday\n/);
    // Slugs that differ only in case are the same place; a near miss suggests the right slug.
    expect(ok(await call(c.client, "get_place", { slug: "Marfa-Texas" }))).toMatchObject({ slug: "marfa-texas" });
    const typo = problemOf(await call(c.client, "get_place", { slug: "marfaa-texas" }));
    expect(typo).toMatchObject({ code: "city_not_found", reason: "unknown_place" });
    expect(typo.suggestions).toContain("marfa-texas");
    expect(typo.detail).toContain('Did you mean "marfa-texas"');
  });

  it("\"List an event for Ely next Saturday\": refused with the precondition in words while Ely has no newsletter, then listed for the Saturday of Ely's own calendar", async () => {
    const ely = ELY[revision];
    const { tools } = await c.client.listTools();
    for (const name of ["create_event_listing", "create_business_listing"]) {
      const description = tools.find((t) => t.name === name)!.description!;
      expect(description, name).toMatch(/precondition: the town must sell listings/i);
      expect(description, name).toContain("`reason: not_selling`");
    }
    const facts = ok(await call(c.client, "get_place", { slug: ely.slug })) as { localDate: string; weekday: string; timezone: string; sellsListings: boolean };
    expect(facts).toMatchObject({ timezone: ely.zone, localDate: "2026-11-27", weekday: "Friday", sellsListings: false });
    const saturday = nextSaturday(facts.localDate, facts.weekday);
    expect(saturday).toBe("2026-11-28");

    const listing = { ...EVENT, slug: ely.slug, title: `Ely holiday market ${revision}`, venue: "Ely town square", startsAt: saturday };
    const refused = problemOf(await call(c.client, "create_event_listing", listing));
    expect(refused).toMatchObject({ code: "conflict", status: 409, reason: "not_selling", resolution: PROBLEMS.conflict.mcp, place: { slug: ely.slug, hasNewsletter: false, sellsListings: false } });
    expect(refused.detail).toContain(`${ely.name} does not sell listings yet`);
    expect(refused.howToStart).toBe("A town sells listings once it has a newsletter (its first subscriber: a reader subscribes their own address) or an operator (someone leases the town).");
    expect(refused.detail).toContain("subscribe_city");
    expect(refused.detail).toContain("start_town_checkout");
    expect(refused.detail).not.toMatch(/\/api\/|\bPOST\b/);

    // A reader in Ely subscribes with their own address: the town now has a newsletter and sells listings.
    ok(await call(c.client, "subscribe_city", { email: `ely-reader-${revision}@example.org`, slug: ely.slug }));
    const city = ok(await call(c.client, "get_city", { slug: ely.slug })) as { localDate: string; weekday: string; timezone: string };
    expect(city).toMatchObject({ timezone: ely.zone, localDate: "2026-11-27", weekday: "Friday" });
    expect((ok(await call(c.client, "find_place", { q: ely.name })) as { results: Array<{ slug: string; sellsListings: boolean }> }).results.find((r) => r.slug === ely.slug)).toMatchObject({ sellsListings: true });
    const order = ok(await call(c.client, "create_event_listing", listing)) as { orderId: string; checkoutUrl?: string };
    expect(order.checkoutUrl).toMatch(/^http/);
    const status = ok(await call(c.client, "get_listing_order", { id: order.orderId })) as { town: { slug: string }; startsAt?: string };
    expect(status.town.slug).toBe(ely.slug);
    expect(status.startsAt).toContain("2026-11-28");
  });

  it("search_archives with a misspelled argument is refused, naming the allowed ones, instead of searching every town", async () => {
    const p = problemOf(await call(c.client, "search_archives", { q: "thanksgiving", city: "denver-colorado" }));
    expect(p).toMatchObject({ code: "validation_error", resolution: PROBLEMS.validation_error.mcp });
    expect(p.issues).toEqual([{ path: "city", message: "unknown argument: search_archives takes `q`, `limit`, `slug`; did you mean `slug`?" }]);
    // A near spelling and a synonym are recognised too; an argument with no likely meaning names the allowed ones only.
    expect(problemOf(await call(c.client, "get_city", { slgu: "boise-idaho" })).issues![0].message).toContain("did you mean `slug`?");
    expect(problemOf(await call(c.client, "find_place", { query: "boise" })).issues![0].message).toContain("did you mean `q`?");
    expect(problemOf(await call(c.client, "list_cities", { verbose: true })).issues).toEqual([{ path: "verbose", message: "unknown argument: list_cities takes no arguments" }]);
    // The right argument searches the one town.
    const found = ok(await call(c.client, "search_archives", { q: "thanksgiving", slug: "boise-idaho" })) as { results: Array<{ date: string }> };
    expect(found.results.map((r) => r.date)).toEqual(["2026-11-26"]);
  });

  it("\"the latest edition\" is one call: get_archive without a date", async () => {
    const r = await call(c.client, "get_archive", { slug: "boise-idaho" });
    expect(ok(r)).toMatchObject({ date: "2026-11-27", subject: "Boise: a bright Friday" });
    expect(textOf(r)).toContain("Sun all day after a cold start.");
  });
});
