import http from "node:http";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addEdition } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// Repeated public MCP reads are answered before h3 (api/mcp/front.ts): the same answer as the app's,
// said in Cache-Status; never for an operator's request, a foreign Origin, or after the data changed.

let server: TestServer;

beforeAll(async () => {
  // A fixed clock: a kept answer is good until the data changes, not only until the next second.
  server = await startTestServer({ MAIL_SENDER: "off", SUBSCRIBE_RATE_LIMIT: "1000", NOW: "2026-11-22T15:00:00.000Z" });
  addEdition(server.ctx.db, "boise-idaho", "2026-11-20", "Boise: frost, then sun", "Frost on the foothills until ten, then sun.");
});
afterAll(async () => {
  await server?.stop();
});

const HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25" };
const getCity = (id: unknown, slug = "boise-idaho") => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "get_city", arguments: { slug } } });

/** A raw POST, so the bytes and headers are seen as sent (fetch would decode them). */
function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.url}${path}`, { method: "POST", headers: { ...HEADERS, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end(typeof body === "string" ? body : JSON.stringify(body));
  });
}

/** Until the first answer has been kept (it is read from a clone after it was sent). */
async function kept(body: unknown, headers: Record<string, string> = {}) {
  for (let i = 0; i < 50; i++) {
    const res = await post("/mcp", body, headers);
    if (res.headers["cache-status"]) return res;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("never answered from the replay");
}

const SAME_HEADERS = ["content-type", "vary", "referrer-policy", "x-content-type-options"];

describe("MCP reads answered before the app", () => {
  it("answers a repeated get_city exactly as the app did, with the new id, and says so", async () => {
    const first = await post("/mcp", getCity(1));
    expect(first.status).toBe(200);
    expect(first.headers["cache-status"]).toBeUndefined();
    const again = await kept(getCity("two"));
    expect(again.headers["cache-status"]).toBe("citydaily-mcp-replay; hit");
    for (const h of SAME_HEADERS) expect(again.headers[h], h).toBe(first.headers[h]);
    // As the app's own replay says: one caller's answer, for no shared cache.
    expect(again.headers["cache-control"]).toBe("no-store");
    const a = JSON.parse(first.body.toString()), b = JSON.parse(again.body.toString());
    expect(b.id).toBe("two");
    expect(b.result).toEqual(a.result);
    expect(b.result.structuredContent).toMatchObject({ slug: "boise-idaho", archives: [{ date: "2026-11-20", subject: "Boise: frost, then sun" }] });
  });

  it("compresses as the app does when the client asks", async () => {
    const list = { jsonrpc: "2.0", id: 3, method: "tools/list", params: {} };
    const plain = await kept(list);
    const br = await kept(list, { "Accept-Encoding": "br" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(JSON.parse(zlib.brotliDecompressSync(br.body).toString())).toEqual(JSON.parse(plain.body.toString()));
    expect(br.body.length).toBeLessThan(plain.body.length / 3);
  });

  it("never answers an operator's request, a foreign Origin or /mcp?operator from what it keeps", async () => {
    await kept(getCity(4));
    const bearer = await post("/mcp", getCity(5), { Authorization: "Bearer not-a-token" });
    expect(bearer.status).toBe(401);
    expect(bearer.headers["www-authenticate"]).toContain('error="invalid_token"');
    expect((await post("/mcp?operator", getCity(6))).status).toBe(401);
    const foreign = await post("/mcp", getCity(7), { Origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect(foreign.headers["cache-status"]).toBeUndefined();
  });

  it("passes what it cannot answer on to the app with its body: a write, another town, a bad body", async () => {
    const subscribers = async () => JSON.parse((await kept(getCity(8))).body.toString()).result.structuredContent.subscriberCount as number;
    const before = await subscribers();
    const write = await post("/mcp", { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "subscribe_city", arguments: { email: "front@example.org", slug: "boise-idaho" } } });
    expect(JSON.parse(write.body.toString()).result.isError).toBeFalsy();
    // The write ended the kept answer: the new subscriber shows.
    expect(await subscribers()).toBe(before + 1);
    const marfa = JSON.parse((await post("/mcp", getCity(10, "marfa-texas"))).body.toString());
    expect(marfa.result).toMatchObject({ isError: true });
    expect(marfa.result.content[0].text).toContain("no_newsletter");
    // A server made for one call registers that tool alone; a tool that does not exist is still the SDK's own error.
    const unknown = JSON.parse((await post("/mcp", { jsonrpc: "2.0", id: 11, method: "tools/call", params: { name: "get_citty", arguments: {} } })).body.toString());
    expect(unknown.error).toMatchObject({ code: -32602, message: "Tool get_citty not found" });
    const bad = await post("/mcp", "{not json");
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body.toString()).error.code).toBe(-32700);
  });
});
