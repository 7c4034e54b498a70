import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upcomingEvent } from "../helpers/commerce.ts";
import { connectV1 } from "../helpers/mcp-clients.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

/**
 * A full disk under the database: writes answer 503 `storage_full` with Retry-After (nothing stored),
 * logged as an alert, while reads keep working; once there is room again, writes succeed. SQLite's
 * own ceiling (`max_page_count`) gives the same SQLITE_FULL a full disk does, without a mount.
 * Also: a client that goes away mid-body is not logged as a server error.
 */
let server: TestServer;
const logged: Array<{ level: string; obj: Record<string, unknown>; msg: string }> = [];

beforeAll(async () => {
  server = await startTestServer({ MAIL_SENDER: "off", SUBSCRIBE_RATE_LIMIT: "100000" });
  for (const level of ["error", "warn", "info"] as const) {
    const original = server.ctx.log[level].bind(server.ctx.log);
    server.ctx.log[level] = ((obj: unknown, msg?: string, ...rest: unknown[]) => {
      if (typeof obj === "object" && obj !== null) logged.push({ level, obj: obj as Record<string, unknown>, msg: msg ?? "" });
      return (original as (...a: unknown[]) => void)(obj, msg, ...rest);
    }) as typeof server.ctx.log.error;
  }
});
afterAll(async () => {
  await server?.stop();
});

const subscribe = (email: string) => server.post("/api/subscribe", { email, city: "Boise", state: "Idaho", slug: "boise-idaho" });
const count = () => server.ctx.db.prepare("SELECT count(*) FROM subscribers").pluck().get() as number;

describe("a full disk under the database", () => {
  it("answers writes 503 storage_full with Retry-After, stores nothing, alerts, and keeps reads working", async () => {
    expect((await subscribe("before@example.org")).status).toBe(200);
    const stored = count();
    // The database may not grow by a single page from now on.
    const pages = server.ctx.db.pragma("page_count", { simple: true }) as number;
    server.ctx.db.pragma(`max_page_count = ${pages}`);
    try {
      let refused: Response | undefined;
      // Free pages inside the file absorb a few writes; then the file would have to grow.
      for (let i = 0; i < 2000 && !refused; i++) {
        const r = await subscribe(`full${i}-${"x".repeat(150)}@example.org`);
        if (r.status !== 200) refused = r;
      }
      expect(refused, "no write was refused").toBeDefined();
      expect(refused!.status).toBe(503);
      expect(refused!.headers.get("retry-after")).toBe("60");
      expect(refused!.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      const body = (await refused!.json()) as { code: string; status: number };
      expect(body).toMatchObject({ code: "storage_full", status: 503 });
      expect(logged.some((l) => l.level === "error" && l.obj.alert === "storage_full")).toBe(true);
      expect(logged.some((l) => l.msg === "unhandled error")).toBe(false);
      // The MCP subscribe tool says the same, as a tool error with the problem body. Its address is
      // longer than any refused above, or the smaller row could still fit in a page's free space.
      const mcp = await connectV1(`${server.url}/mcp`);
      try {
        const r = (await mcp.client.callTool({ name: "subscribe_city", arguments: { email: `mcp-full-${"x".repeat(170)}@example.org`, city: "Boise", state: "Idaho", slug: "boise-idaho" } })) as { isError?: boolean; content: Array<{ text: string }> };
        expect(r.isError).toBe(true);
        expect(JSON.parse(r.content[0].text)).toMatchObject({ code: "storage_full", status: 503, retryAfter: 60 });
      } finally {
        await mcp.close();
      }
      const during = count();
      // Reads keep working.
      expect((await server.get("/api/pricing")).status).toBe(200);
      expect((await server.get("/api/cities")).status).toBe(200);
      expect((await server.get("/openapi.json")).status).toBe(200);
      expect(during).toBeGreaterThanOrEqual(stored);
      expect(server.ctx.db.pragma("integrity_check", { simple: true })).toBe("ok");
    } finally {
      server.ctx.db.pragma("max_page_count = 4294967294");
    }
    // Room again: writes succeed.
    expect((await subscribe("after@example.org")).status).toBe(200);
  });
});

describe("a full disk on the people's pages", () => {
  const BROWSER = { Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "Content-Type": "application/x-www-form-urlencoded" };
  const form = (path: string, body: Record<string, string>) =>
    fetch(`${server.url}${path}`, { method: "POST", headers: BROWSER, body: new URLSearchParams(body).toString(), redirect: "manual" });

  /** A 503 page in the site's layout, with the retry advice in words: not problem+json shown raw. */
  async function expectFullPage(r: Response) {
    expect(r.status).toBe(503);
    expect(r.headers.get("content-type")).toMatch(/^text\/html/);
    expect(r.headers.get("retry-after")).toBe("60");
    const html = await r.text();
    expect(html).toMatch(/^<!DOCTYPE html>/i);
    expect(html).toContain('<link rel="stylesheet"');
    expect(html).toMatch(/<footer/);
    expect(html).toMatch(/Nothing you sent was saved/);
    expect(html).toMatch(/try again in a minute/);
    expect(html).not.toMatch(/"code":\s*"storage_full"/);
  }

  it("the HTML subscribe form and the Pay button answer a page (503, Retry-After), never raw JSON", async () => {
    // Checkout sessions to press Pay on, made while there is room (a town with readers takes listings).
    expect((await subscribe("pages-reader@example.org")).status).toBe(200);
    const sessions: string[] = [];
    for (let i = 0; i < 40; i++) {
      const r = await server.post("/api/listing-checkout", { ...upcomingEvent(server), title: `Full disk concert ${i}` });
      expect(r.status).toBe(200);
      const { orderId } = (await r.json()) as { orderId: string };
      sessions.push(server.ctx.db.prepare("SELECT provider_session_id FROM listing_orders WHERE id = ?").pluck().get(orderId) as string);
    }
    const pages = server.ctx.db.pragma("page_count", { simple: true }) as number;
    server.ctx.db.pragma(`max_page_count = ${pages}`);
    try {
      // Each form is posted until the disk refuses it (free space inside pages absorbs the first few).
      let refused: Response | undefined;
      for (let i = 0; i < 2000 && !refused; i++) {
        const r = await form("/subscribe", { email: `page-full${i}-${"x".repeat(150)}@example.org`, slug: "boise-idaho" });
        if (r.status !== 200) refused = r;
      }
      await expectFullPage(refused!);
      refused = undefined;
      for (const session of sessions) {
        const r = await form(`/checkout/${session}/pay`, { email: "buyer@example.com" });
        if (r.status !== 303) {
          refused = r;
          break;
        }
      }
      expect(refused, "every Pay was stored").toBeDefined();
      await expectFullPage(refused!);
      // The API still answers problem+json.
      const api = await subscribe(`api-full-${"y".repeat(150)}@example.org`);
      expect(api.status).toBe(503);
      expect(api.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    } finally {
      server.ctx.db.pragma("max_page_count = 4294967294");
    }
  });
});

describe("a client that goes away mid-body", () => {
  it("is logged as an aborted request, not as an unhandled server error", async () => {
    const before = logged.length;
    const { port } = new URL(server.url);
    for (let i = 0; i < 5; i++) {
      await new Promise<void>((resolve) => {
        const socket = net.connect(Number(port), "127.0.0.1", () => {
          socket.write("POST /api/subscribe HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"email\": \"gone");
          setTimeout(() => { socket.destroy(); resolve(); }, 100);
        });
      });
    }
    await new Promise((r) => setTimeout(r, 300));
    const after = logged.slice(before);
    expect(after.filter((l) => l.level === "error")).toEqual([]);
    expect(after.filter((l) => l.msg === "request aborted by the client").length).toBe(5);
  });
});
