import net from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSite } from "../../src/services/site/publish.ts";
import { addEdition } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// Hostile input against every public endpoint, generated from the served OpenAPI description, plus
// the routes outside the API. Invariants: never a 5xx; every /api failure is a well-formed problem;
// nothing echoed unescaped into HTML; the database stays sound and holds only what valid requests made.

let server: TestServer;
const ADMIN = "hostile-admin-token";

interface Problem { type: string; title: string; status: number; detail: string; code: string; resolution: string; documentation: string; error: string; instance?: string; issues?: unknown[] }
interface Op { method: "GET" | "POST"; path: string; pathParams: string[]; query: string[] }

let ops: Op[] = [];
const stats = { requests: 0, byStatus: new Map<number, number>() };
let acceptedSubscribes = 0;

beforeAll(async () => {
  server = await startTestServer({ MAIL_SENDER: "off", SUBSCRIBE_RATE_LIMIT: "1000000", ADMIN_TOKEN: ADMIN });
  addEdition(server.ctx.db, "boise-idaho", "2026-11-20", "Boise: light rain after noon");
  await buildSite(server.ctx);
  const doc = (await (await server.get("/openapi.json")).json()) as {
    paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>>;
  };
  ops = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({
    method: method.toUpperCase() as Op["method"], path,
    pathParams: (op.parameters ?? []).filter((p) => p.in === "path").map((p) => p.name),
    query: (op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name),
  })));
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

/** Strings an attacker tries first, mixed with anything fast-check makes up. */
const NASTY = [
  "", " ", "'", "\"", "' OR 1=1 --", "\"; DROP TABLE subscribers; --", "NEAR(a b)", "a* OR \"", "^a", "subject:x", "{a b}:c",
  "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "\"><svg/onload=alert(1)>", "../../etc/passwd", "..\\..\\windows",
  "%2e%2e%2f", "%252e%252e%252f", "\u0000", "a\r\nBcc: victim@example.org", "__proto__", "constructor", "😀".repeat(50),
  "x".repeat(5000), "-1", "1e309", "NaN", "null", "[]", "{}", "boise-idaho", "2026-11-20", "2026-11-20.md", "st-louis-missouri",
];
const text = fc.oneof(fc.constantFrom(...NASTY), fc.string({ unit: "grapheme", maxLength: 80 }), fc.string({ unit: "binary", maxLength: 40 }));
const jsonValue = fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(text, { maxLength: 3 }));

function bodyOf(fields: Record<string, unknown>): fc.Arbitrary<string> {
  return fc.oneof(
    fc.record(Object.fromEntries(Object.keys(fields).map((k) => [k, jsonValue])), { requiredKeys: [] }).map((o) => JSON.stringify(o)),
    fc.dictionary(text, jsonValue, { maxKeys: 5 }).map((o) => JSON.stringify(o)),
    // Valid requests too, so the final check has something to count.
    fc.record({ email: fc.oneof(fc.emailAddress(), fc.stringMatching(/^[a-z0-9]{1,12}$/).map((l) => `${l}@example.org`)), city: fc.constant("Boise"), state: fc.constantFrom("Idaho", "ID"), slug: fc.constant("boise-idaho") }).map((o) => JSON.stringify(o)),
    fc.constantFrom('{"__proto__": {"polluted": true}, "email": "a@example.org"}', '{"constructor": {"prototype": {"polluted": true}}}', "[1,2", "\u0000", "null", "[]", ""),
    text,
  );
}

const SUBSCRIBE_FIELDS = { email: 1, city: 1, state: 1, slug: 1, honeypot: 1, referrer: 1, utm_source: 1, landing_path: 1 };

function requestFor(op: Op): fc.Arbitrary<{ url: string; init: RequestInit }> {
  return fc.record({
    params: fc.tuple(...op.pathParams.map(() => text)),
    query: fc.record(Object.fromEntries(op.query.map((q) => [q, text])), { requiredKeys: [] }),
    extra: fc.dictionary(fc.constantFrom("x", "__proto__", "q", "limit", "slug"), text, { maxKeys: 2 }),
    v1: fc.boolean(),
    body: bodyOf(SUBSCRIBE_FIELDS),
    contentType: fc.constantFrom("application/json", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"),
    accept: fc.constantFrom("*/*", "text/markdown", "application/json", "text/html", "x".repeat(2000), ""),
  }).map(({ params, query, extra, v1, body, contentType, accept }) => {
    let path = op.path;
    op.pathParams.forEach((name, i) => { path = path.replace(`{${name}}`, encodeURIComponent(params[i])); });
    if (v1) path = path.replace(/^\/api\//, "/api/v1/");
    const search = new URLSearchParams({ ...extra, ...query } as Record<string, string>).toString();
    const init: RequestInit = { method: op.method, headers: { Accept: accept, "Content-Type": contentType } };
    if (op.method === "POST") init.body = body;
    return { url: `${path}${search ? `?${search}` : ""}`, init };
  });
}

async function send(url: string, init: RequestInit): Promise<Response> {
  const res = await server.get(url, init);
  stats.requests++;
  stats.byStatus.set(res.status, (stats.byStatus.get(res.status) ?? 0) + 1);
  return res;
}

/** The spec's rules for a problem body (section 7). */
async function expectWellFormed(res: Response, url: string, method = "GET"): Promise<Problem | undefined> {
  expect(res.status, url).toBeLessThan(500);
  if (res.status < 400 || !url.startsWith("/api")) return undefined;
  expect(res.headers.get("content-type"), url).toMatch(/^application\/problem\+json/);
  if (method === "HEAD") return undefined; // same headers, no body
  const p = (await res.clone().json()) as Problem;
  expect(p.status, url).toBe(res.status);
  expect(p.error, url).toBe(p.detail);
  expect(p.type, url).toMatch(new RegExp(`/developers#error-${p.code}$`));
  expect(typeof p.title === "string" && typeof p.resolution === "string" && typeof p.documentation === "string", url).toBe(true);
  expect("issues" in p, `${url}: issues only on validation failures`).toBe(p.code === "validation_error");
  return p;
}

describe("generated from the OpenAPI description", () => {
  it("every public operation answers random and malformed input with a well-formed response, never a 5xx", async () => {
    expect(ops.length).toBeGreaterThanOrEqual(8);
    for (const op of ops) {
      await fc.assert(fc.asyncProperty(requestFor(op), async ({ url, init }) => {
        const res = await send(url, init);
        const p = await expectWellFormed(res, url);
        if (op.path === "/api/subscribe" && res.status === 200) acceptedSubscribes++;
        if (!p && res.status !== 304) await res.arrayBuffer();
      }), { numRuns: 60 });
    }
  });

  it("random paths inside and outside the API get a 4xx or a page, and nothing they contain comes back unescaped", async () => {
    const segment = fc.oneof(fc.constantFrom(...NASTY.map(encodeURIComponent), "api", "v1", "city", "archive", "unsubscribe", "subscriptions", "webhooks", "states", "boise-idaho"), fc.webSegment());
    await fc.assert(fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 5 }), fc.constantFrom("GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"), async (segments, method) => {
      const url = `/${segments.join("/")}`;
      const res = await send(url, { method, body: method === "POST" || method === "PUT" ? "<script>alert(1)</script>" : undefined });
      await expectWellFormed(res, url, method);
      const body = method === "HEAD" ? "" : await res.text();
      if ((res.headers.get("content-type") ?? "").startsWith("text/html")) {
        expect(body, url).not.toMatch(/<script>alert\(1\)<\/script>|<img src=x onerror|<svg\/onload/);
      }
    }), { numRuns: 300 });
  });

  it("/mcp answers random and malformed JSON-RPC with a JSON-RPC error or a 4xx, never a 5xx", async () => {
    const method = fc.oneof(fc.constantFrom("initialize", "tools/list", "tools/call", "resources/read", "prompts/get", "ping", "server/discover", "nope"), text);
    const message = fc.oneof(
      fc.record({ jsonrpc: fc.constantFrom("2.0", "1.0", 2), id: fc.oneof(fc.integer(), text, fc.constant(null)), method, params: fc.oneof(fc.constant(undefined), fc.dictionary(text, jsonValue, { maxKeys: 3 }), fc.record({ name: fc.constantFrom("get_city", "subscribe_city", "nope"), arguments: fc.dictionary(text, jsonValue, { maxKeys: 3 }) })) }).map((m) => JSON.stringify(m)),
      fc.array(fc.record({ jsonrpc: fc.constant("2.0"), id: fc.integer(), method }), { maxLength: 3 }).map((m) => JSON.stringify(m)),
      text,
    );
    await fc.assert(fc.asyncProperty(message, fc.constantFrom("application/json, text/event-stream", "application/json", "*/*", "text/html"), fc.constantFrom(undefined, "2025-11-25", "2026-07-28", "1999-01-01", "<script>"), async (body, accept, version) => {
      const headers: Record<string, string> = { "Content-Type": "application/json", Accept: accept };
      if (version) headers["MCP-Protocol-Version"] = version;
      const res = await send("/mcp", { method: "POST", headers, body });
      expect(res.status, body.slice(0, 200)).toBeLessThan(500);
      await res.arrayBuffer();
    }), { numRuns: 150 });
  });

  it("leaves the database sound, holding only what valid requests created", () => {
    const db = server.ctx.db;
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    const subscribers = db.prepare("SELECT email, status FROM subscribers").all() as Array<{ email: string; status: string }>;
    // A subscription exists only where a request was accepted, and only for a well-formed address.
    expect(subscribers.length).toBeLessThanOrEqual(acceptedSubscribes);
    for (const s of subscribers) expect(s.email).toMatch(/^[^\s@<>"]+@[^\s@<>"]+\.[a-z]{2,}$/i);
    expect(db.prepare("SELECT count(*) FROM editions").pluck().get()).toBe(1);
    expect(db.prepare("SELECT count(*) FROM suppressions").pluck().get()).toBe(0);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    console.log(`hostile input: ${stats.requests} requests, statuses ${JSON.stringify(Object.fromEntries([...stats.byStatus].sort()))}, ${subscribers.length} subscriptions from ${acceptedSubscribes} accepted subscribes`);
  });
});

describe("named cases", () => {
  const subscribe = (body: unknown) => server.post("/api/subscribe", body);
  const valid = { email: "reader@example.org", city: "Boise", state: "Idaho", slug: "boise-idaho" };

  it("SQL and FTS5 syntax in every text field is data, never syntax", async () => {
    const before = server.ctx.db.prepare("SELECT count(*) FROM subscribers").pluck().get();
    for (const evil of ["' OR 1=1 --", "\"; DROP TABLE subscribers; --", "NEAR(rain snow, 2)", "rain\" OR \"", "*", "^rain", "body:rain", "{subject}:x", "rain AND", "(rain"]) {
      const search = await server.get(`/api/search?q=${encodeURIComponent(evil)}`);
      expect([200, 400], evil).toContain(search.status);
      await expectWellFormed(search, "/api/search");
      for (const field of ["email", "city", "state", "slug"] as const) {
        const r = await subscribe({ ...valid, [field]: evil });
        expect(r.status, `${field}=${evil}`).toBe(400);
        expect((await r.json()).code).toBe("validation_error");
      }
    }
    expect(server.ctx.db.prepare("SELECT count(*) FROM subscribers").pluck().get()).toBe(before);
  });

  it("a trailing-slash redirect stays on the site", async () => {
    for (const [p, location] of [["//evil.example/", "/evil.example"], ["//", "/"], ["///boise-idaho//", "/boise-idaho"], ["/boise-idaho/?a=1", "/boise-idaho?a=1"]]) {
      const r = await server.get(p, { redirect: "manual" });
      expect(r.status, p).toBe(301);
      expect(r.headers.get("location"), p).toBe(location);
    }
  });

  it("HTML in edition text never reaches a search snippet as markup", async () => {
    addEdition(server.ctx.db, "boise-idaho", "2026-11-21", "Odd <b>subject</b>", "Someone wrote `<img src=x onerror=alert(1)>` & <script>alert(1)</script> near the zeppelinfest.");
    for (const q of ["zeppelinfest", "img", "odd"]) {
      const body = (await (await server.get(`/api/search?q=${q}`)).json()) as { results: Array<{ snippet: string }> };
      expect(body.results.length, q).toBeGreaterThan(0);
      // The only markup is <mark>; every other angle bracket is escaped.
      for (const r of body.results) expect(r.snippet.replace(/<\/?mark>/g, ""), q).not.toMatch(/[<>]/);
    }
  });

  it("CRLF in an email field is a validation error, never a header", async () => {
    for (const email of ["a@example.org\r\nBcc: victim@example.org", "a@example.org\nBcc: v@example.org", "a@exa\rmple.org"]) {
      const r = await subscribe({ ...valid, email });
      expect(r.status).toBe(400);
      expect((await r.json()).issues).toEqual(expect.arrayContaining([expect.objectContaining({ path: "email" })]));
    }
  });

  it("path traversal against static files and archive dates is a 404 or a validation error", async () => {
    for (const date of ["..%2f..%2fcitydaily.db", "%252e%252e%252fcitydaily.db", "..%5c..%5ccitydaily.db", "2026-11-20%00.md", "..", "2026-11-20%2f..%2f..%2fetc%2fpasswd"]) {
      const r = await server.get(`/api/archive/boise-idaho/${date}`);
      expect([400, 404], date).toContain(r.status);
      await expectWellFormed(r, "/api/archive");
    }
    for (const p of ["/..%2fcitydaily.db", "/%2e%2e%2fcitydaily.db", "/..%5ccitydaily.db", "/%252e%252e/citydaily.db", "/boise-idaho%00.md", "/archive/..%2f..%2fcitydaily.db"]) {
      const r = await server.get(p);
      expect(r.status, p).toBe(404);
      expect(await r.text()).not.toContain("SQLite format");
    }
  });

  it("__proto__ keys pollute nothing", async () => {
    const r = await server.post("/api/subscribe", '{"__proto__": {"polluted": "yes"}, "email": "p@example.org", "city": "Boise", "state": "Idaho", "slug": "boise-idaho", "constructor": {"prototype": {"polluted": "yes"}}}');
    expect(r.status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
  });

  it("invalid UTF-8 in a body is invalid JSON or a validation error", async () => {
    const bytes = Buffer.concat([Buffer.from('{"email": "'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('@example.org", "city": "Boise", "state": "Idaho", "slug": "boise-idaho"}')]);
    const r = await server.get("/api/subscribe", { method: "POST", headers: { "Content-Type": "application/json" }, body: bytes });
    expect([400]).toContain(r.status);
    expect(["validation_error", "invalid_json"]).toContain((await r.json()).code);
  });

  it("64 KB headers and query strings and a huge Accept are refused or served, never a 5xx", async () => {
    const q = await server.get(`/api/search?q=${"a".repeat(64 * 1024)}`);
    expect(q.status).toBeGreaterThanOrEqual(400);
    expect(q.status).toBeLessThan(500);
    // Node answers 431 past its 16 KB header limit and closes; the client may see the close (a reset)
    // before the answer while it is still writing. Either way, no handler ever runs.
    const raw = await rawRequest(`GET /api/cities HTTP/1.1\r\nHost: x\r\nX-Big: ${"b".repeat(64 * 1024)}\r\nConnection: close\r\n\r\n`);
    expect(raw).toMatch(/^HTTP\/1\.1 431 |^reset$/);
    const accept = await server.get("/developers", { headers: { Accept: `${"text/x-nothing;q=0.1, ".repeat(400)}text/markdown` } });
    expect(accept.status).toBe(200);
    expect(await (await server.get("/api/cities")).json()).toHaveProperty("states");
  });
});

/** Writes raw bytes to the server and returns what it answers before closing. */
function rawRequest(request: string): Promise<string> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), "127.0.0.1", () => socket.end(request));
    let data = "";
    socket.on("data", (c) => { data += c.toString("latin1"); });
    socket.on("end", () => resolve(data));
    socket.on("error", (e: NodeJS.ErrnoException) => (e.code === "ECONNRESET" || e.code === "EPIPE" ? resolve(data || "reset") : reject(e)));
  });
}
