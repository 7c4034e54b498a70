import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENTS } from "../helpers/mcp-clients.ts";
import { addEdition } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// find_place: any U.S. place by name, over HTTP (GET /api/places?q=) and MCP, and the no-JS page
// /places it backs. Places come from the real dataset (the template database).

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ MAIL_SENDER: "off", SUBSCRIBE_RATE_LIMIT: "1000" });
  addEdition(server.ctx.db, "boise-idaho", "2026-11-20", "Boise: frost, then sun");
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

type Match = { slug: string; name: string; state: string; population: number; hasNewsletter: boolean; url: string };
const find = async (q: string) => {
  const res = await server.get(`/api/places?q=${encodeURIComponent(q)}`);
  expect(res.status, q).toBe(200);
  return ((await res.json()) as { results: Match[] }).results;
};

describe("GET /api/places", () => {
  it("finds a small town by name and state, written either way", async () => {
    const ely = await find("Ely, Nevada");
    expect(ely[0]).toMatchObject({ slug: "ely-nevada", name: "Ely", state: "Nevada", hasNewsletter: false });
    expect(ely[0].population).toBeGreaterThan(3000);
    expect(ely[0].url).toBe(`${server.url}/ely-nevada`);
    expect((await find("marfa texas"))[0]).toMatchObject({ slug: "marfa-texas", state: "Texas" });
  });

  it("forgives a misspelling, and ranks the larger of equally close names first", async () => {
    expect((await find("Tuscon"))[0].slug).toBe("tucson-arizona");
    expect((await find("albuquerqe"))[0].slug).toBe("albuquerque-new-mexico");
    const springfields = await find("springfield");
    expect(springfields.length).toBe(10);
    expect(springfields.map((p) => p.population)).toEqual([...springfields.map((p) => p.population)].sort((a, b) => b - a));
  });

  it("says which towns have a newsletter", async () => {
    expect((await find("boise idaho"))[0]).toMatchObject({ slug: "boise-idaho", hasNewsletter: true });
  });

  it("answers no match with an empty list and a too-short search with validation_error", async () => {
    expect(await find("zzqxv")).toEqual([]);
    const res = await server.get("/api/places?q=a");
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string; issues: Array<{ path: string }> })).toMatchObject({ code: "validation_error", issues: [{ path: "q" }] });
  });

  it("is in the OpenAPI description", async () => {
    const doc = (await (await server.get("/openapi.json")).json()) as { paths: Record<string, { get?: { operationId: string } }> };
    expect(doc.paths["/api/places"].get!.operationId).toBe("findPlace");
  });
});

describe.each(CLIENTS)("find_place over MCP %s", (_revision, connect) => {
  it("finds Ely, Nevada, marfa texas and a misspelling, with slugs subscribe_city takes", async () => {
    const c = await connect(`${server.url}/mcp`);
    try {
      const call = async (q: string) => ((await c.client.callTool({ name: "find_place", arguments: { q } })).structuredContent as { results: Match[] }).results;
      expect((await call("Ely, Nevada"))[0].slug).toBe("ely-nevada");
      expect((await call("marfa texas"))[0].slug).toBe("marfa-texas");
      expect((await call("Pittsburg pennsylvania"))[0].slug).toBe("pittsburgh-pennsylvania");
      const marfa = (await call("marfa texas"))[0];
      const sub = await c.client.callTool({ name: "subscribe_city", arguments: { email: `marfa-${_revision}@example.org`, slug: marfa.slug } }) as { isError?: boolean };
      expect(sub.isError).toBeFalsy();
      expect((await call("marfa texas"))[0].hasNewsletter).toBe(true);
    } finally {
      await c.close();
    }
  });
});

describe("GET /places (the place finder without JavaScript)", () => {
  it("lists the matches: a town with a newsletter links to its page, one without gets a subscribe form", async () => {
    const res = await server.get("/places?q=boise");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<a href="/boise-idaho">Boise, Idaho</a>');
    expect(html).toContain('value="boise"');
    const ely = await (await server.get("/places?q=Ely%2C+Nevada")).text();
    expect(ely).toMatch(/<a href="\/ely-nevada">Ely, Nevada<\/a>[\s\S]*?no newsletter yet[\s\S]*?<form method="post" action="\/subscribe">[\s\S]*?name="slug" value="ely-nevada"/);
  });

  it("keeps what was typed and says what is wrong next to the field", async () => {
    const res = await server.get("/places?q=e");
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toMatch(/<input id="q" name="q" type="text" value="e"[^>]*aria-invalid="true" aria-describedby="q-error">/);
    expect(html).toContain('<p class="field-error" id="q-error">');
  });
});
