import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subscriberToken } from "../../src/services/readers/unsubscribe.ts";
import { CLIENTS, type AnyClient, type Connected } from "../helpers/mcp-clients.ts";
import { addSubscriber, geoidOf } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// A reader's choices through their own assistant: the MCP tools get_my_newsletter_choices and
// set_newsletter_choices with the manage link's token the reader handed over, with both SDK clients.
// What the tool stores is what the HTTP API reads; an altered token or another reader's town is the
// tool error `not_found`; one reader's answer is never another token's.

const ELY = "ely-nevada";
const BOISE = "boise-idaho";
const DEFAULTS = { frequency: "daily", weeklyDay: "saturday", deliveryTime: "06:00", hiddenSections: [] };

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ MAIL_SENDER: "off", NOW: "2026-11-24T15:00:00.000Z" });
  for (const revision of CLIENTS.map(([r]) => r)) {
    addSubscriber(server.ctx.db, ELY, readerOf(revision));
    addSubscriber(server.ctx.db, BOISE, readerOf(revision));
  }
  addSubscriber(server.ctx.db, BOISE, "neighbor@example.org");
});
afterAll(async () => {
  await server?.stop();
});

const readerOf = (revision: string) => `reader-${revision}@example.org`;
const tokenOf = (email: string) => {
  const id = server.ctx.db.prepare("SELECT id FROM subscribers WHERE email = ? ORDER BY id LIMIT 1").pluck().get(email) as number;
  return subscriberToken(server.ctx, id, email);
};

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown> };
type Town = { slug: string; name: string; status: string; timezone: string; preferences: typeof DEFAULTS };
type Choices = { email: string; suppressed: boolean; cities: Town[]; sections: Array<{ key: string; label: string }> };
const call = (client: AnyClient, name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<ToolResult>;
const problemOf = (r: ToolResult) => {
  expect(r.isError, JSON.stringify(r.structuredContent)).toBe(true);
  return JSON.parse(r.content.map((c) => c.text ?? "").join("")) as { code: string; detail: string; resolution: string; issues?: Array<{ path: string; message: string }> };
};
const town = (choices: Choices, slug: string) => choices.cities.find((c) => c.slug === slug);

describe.each(CLIENTS)("a reader's choices over MCP (%s)", (revision, connect) => {
  let c: Connected;
  const email = readerOf(revision);
  beforeAll(async () => {
    c = await connect(`${server.url}/mcp`);
  });
  afterAll(async () => {
    await c?.close();
  });

  it("reads the reader's towns, switches Ely to Sundays at 7:30 without headlines, and the HTTP API reads the same", async () => {
    const token = tokenOf(email);
    const read = await call(c.client, "get_my_newsletter_choices", { token });
    expect(read.isError, JSON.stringify(read.content)).toBeFalsy();
    const before = read.structuredContent as Choices;
    expect(before.email).toBe(email);
    expect(before.cities.map((t) => t.slug).sort()).toEqual([BOISE, ELY]);
    expect(town(before, ELY)).toMatchObject({ name: "Ely", status: "active", timezone: "America/Los_Angeles", preferences: DEFAULTS });
    expect(before.sections.map((s) => s.key)).toContain("headlines");

    const set = await call(c.client, "set_newsletter_choices", { token, slug: ELY, frequency: "weekly", weeklyDay: "sunday", deliveryTime: "07:30", hiddenSections: ["headlines"] });
    expect(set.isError, JSON.stringify(set.content)).toBeFalsy();
    const chosen = { frequency: "weekly", weeklyDay: "sunday", deliveryTime: "07:30", hiddenSections: ["headlines"] };
    expect(set.structuredContent).toMatchObject({ slug: ELY, preferences: chosen });

    const res = await fetch(`${server.url}/api/subscriptions/${token}`);
    expect(res.status).toBe(200);
    const http = (await res.json()) as Choices;
    expect(town(http, ELY)!.preferences).toEqual(chosen);
    expect(town(http, BOISE)!.preferences).toEqual(DEFAULTS);
    // Stored on the reader's own row, nobody else's.
    expect(server.ctx.db.prepare("SELECT frequency, weekly_day, delivery_minute, hidden_sections FROM subscribers WHERE email = ? AND place_geoid = ?").get(email, geoidOf(server.ctx.db, ELY)))
      .toEqual({ frequency: "weekly", weekly_day: 0, delivery_minute: 450, hidden_sections: "headlines" });

    // The tool reads it back at once (its answer is never kept, so never stale).
    expect(town((await call(c.client, "get_my_newsletter_choices", { token })).structuredContent as Choices, ELY)!.preferences).toEqual(chosen);
  });

  it("refuses an altered token and a town the reader does not get with not_found, and an empty change with validation_error", async () => {
    const token = tokenOf(email);
    const altered = token.slice(0, -1) + (token.endsWith("A") ? "B" : "A");
    for (const [tool, args] of [["get_my_newsletter_choices", { token: altered }], ["set_newsletter_choices", { token: altered, slug: ELY, deliveryTime: "08:00" }]] as const) {
      const problem = problemOf(await call(c.client, tool, args));
      expect(problem.code, tool).toBe("not_found");
      expect(problem.resolution).toMatch(/Manage your cities/);
    }
    expect(problemOf(await call(c.client, "set_newsletter_choices", { token, slug: "marfa-texas", deliveryTime: "08:00" })).code).toBe("not_found");
    // Nothing to change is refused as HTTP refuses it, not answered as a silent success.
    const empty = problemOf(await call(c.client, "set_newsletter_choices", { token, slug: BOISE }));
    expect(empty.code).toBe("validation_error");
    expect(empty.detail).toMatch(/at least one of frequency/);
    const bad = problemOf(await call(c.client, "set_newsletter_choices", { token, slug: BOISE, deliveryTime: "04:30" }));
    expect(bad.issues?.map((i) => i.path)).toEqual(["deliveryTime"]);
    // Nothing was saved by the refused calls.
    const after = (await call(c.client, "get_my_newsletter_choices", { token })).structuredContent as Choices;
    expect(town(after, BOISE)!.preferences).toEqual(DEFAULTS);
  });

  it("never answers one reader's choices to another token", async () => {
    const mine = tokenOf(email);
    const theirs = tokenOf("neighbor@example.org");
    // Each asked twice in turn, as a replaying cache would be tempted to answer.
    for (let i = 0; i < 2; i++) {
      const a = (await call(c.client, "get_my_newsletter_choices", { token: mine })).structuredContent as Choices;
      const b = (await call(c.client, "get_my_newsletter_choices", { token: theirs })).structuredContent as Choices;
      expect(a.email).toBe(email);
      expect(b.email).toBe("neighbor@example.org");
      expect(b.cities.map((t) => t.slug)).toEqual([BOISE]);
    }
  });
});
