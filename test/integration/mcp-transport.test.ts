import { spawn } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../src/config/paths.ts";
import { unescapeHtml } from "../../src/lib/html.ts";
import http from "node:http";
import zlib from "node:zlib";
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from "@modelcontextprotocol/client";
import { CLIENTS } from "../helpers/mcp-clients.ts";
import { addEdition } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// The MCP transport rules (streamable HTTP): notifications, Origin, protocol version header, the
// human set-up page, statelessness across server processes, and the shared rate limit.

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ MAIL_SENDER: "off", SUBSCRIBE_RATE_LIMIT: "1000" });
  addEdition(server.ctx.db, "boise-idaho", "2026-11-20", "Boise: frost, then sun");
});
afterAll(async () => {
  await server?.stop();
});

const rpc = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25", ...headers },
    body: JSON.stringify(body),
  });

/** The JSON-RPC message of a response, whether sent as JSON or as one SSE event. */
async function messageOf(res: Response): Promise<{ id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } }> {
  const text = await res.text();
  if ((res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    const data = text.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("");
    return JSON.parse(data);
  }
  return JSON.parse(text);
}

describe("POST /mcp", () => {
  it("answers a request with a JSON-RPC response, with no session needed", async () => {
    const res = await rpc({ jsonrpc: "2.0", id: 7, method: "tools/list", params: {} });
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    const msg = await messageOf(res);
    expect(msg.id).toBe(7);
    expect((msg.result!.tools as Array<{ name: string }>).map((t) => t.name)).toContain("get_city");
  });

  it("answers a repeated list or read call as the SDK answered it the first time, with the new id", async () => {
    for (const [method, params] of [["tools/list", {}], ["tools/call", { name: "get_city", arguments: { slug: "boise-idaho" } }]] as const) {
      const first = await messageOf(await rpc({ jsonrpc: "2.0", id: 11, method, params }));
      // The first answer is kept once its body has been read; give that a moment.
      await new Promise((r) => setTimeout(r, 50));
      const again = await rpc({ jsonrpc: "2.0", id: "twelve", method, params });
      expect(again.headers.get("content-type"), method).toBe("application/json");
      const second = await messageOf(again);
      expect(second.id).toBe("twelve");
      expect(second.result, method).toEqual(first.result);
    }
    // A write in between ends a kept read: the new subscriber shows.
    const count = async () => ((await messageOf(await rpc({ jsonrpc: "2.0", id: 13, method: "tools/call", params: { name: "get_city", arguments: { slug: "boise-idaho" } } }))).result!.structuredContent as { subscriberCount: number }).subscriberCount;
    const before = await count();
    expect((await server.post("/api/subscribe", { email: "replay@example.org", slug: "boise-idaho", city: "Boise", state: "Idaho" })).status).toBe(200);
    expect(await count()).toBe(before + 1);
  });

  it("answers a notification with 202 and no body", async () => {
    const res = await rpc({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe("");
  });

  it("refuses a foreign Origin with 403 and accepts our own", async () => {
    const foreign = await rpc({ jsonrpc: "2.0", id: 1, method: "tools/list" }, { Origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { error: { code: number } }).error.code).toBeLessThan(0);
    const own = await rpc({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { Origin: server.url });
    expect(own.status).toBe(200);
  });

  it("refuses an unsupported MCP-Protocol-Version header with 400 and -32022 naming the supported versions, to the request's id", async () => {
    const res = await rpc({ jsonrpc: "2.0", id: 3, method: "tools/list" }, { "MCP-Protocol-Version": "1999-01-01" });
    expect(res.status).toBe(400);
    const body = await res.json() as { id: unknown; error: { code: number; message: string; data: { supported: string[]; requested: string } } };
    expect(body).toMatchObject({ id: 3, error: { code: -32022, message: "Unsupported protocol version", data: { requested: "1999-01-01" } } });
    expect(body.error.data.supported).toEqual(expect.arrayContaining(["2025-11-25", "2026-07-28"]));
  });

  it("a resource that does not exist: -32002 for a 2025-era client (its revision's code), -32602 with the uri for 2026-07-28", async () => {
    for (const uri of [`${server.url}/boise-idaho/2026-11-21.md`, `${server.url}/atlantis-nowhere.md`]) {
      const legacy = await messageOf(await rpc({ jsonrpc: "2.0", id: 4, method: "resources/read", params: { uri } }));
      expect(legacy, uri).toMatchObject({ id: 4, error: { code: -32002, data: { uri } } });
    }
    for (const [name, connect] of CLIENTS) {
      const c = await connect(`${server.url}/mcp`);
      try {
        const error = await c.client.readResource({ uri: `${server.url}/boise-idaho/2026-11-21.md` }).then(() => undefined, (e: { code?: number; data?: unknown; message: string }) => e);
        expect(error, name).toMatchObject({ code: name === "2026-07-28" ? -32602 : -32002, data: { uri: `${server.url}/boise-idaho/2026-11-21.md` } });
        expect(error!.message, name).toContain("edition_not_found");
      } finally {
        await c.close();
      }
    }
  });

  it("declares the MCP Apps extension, and server/discover names the versions the server card does", async () => {
    const legacy = await messageOf(await rpc({ jsonrpc: "2.0", id: 5, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } }));
    expect((legacy.result as { capabilities: Record<string, unknown> }).capabilities).toMatchObject({ extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } });
    const card = await (await server.get("/mcp/server-card")).json() as { remotes: Array<{ supportedProtocolVersions: string[] }> };
    const c = await CLIENTS[1][1](`${server.url}/mcp`);
    try {
      const discovered = await (c.client as unknown as { discover: () => Promise<{ supportedVersions: string[]; capabilities: Record<string, unknown> }> }).discover();
      expect([...discovered.supportedVersions].sort()).toEqual([...card.remotes[0].supportedProtocolVersions].sort());
      expect(discovered.capabilities).toMatchObject({ extensions: { "io.modelcontextprotocol/ui": {} } });
    } finally {
      await c.close();
    }
  });

  it("answers malformed JSON with a JSON-RPC parse error, never a 500", async () => {
    const res = await fetch(`${server.url}/mcp`, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" }, body: "{" });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });
});

/** Every request of a client asks for compression, as Node's fetch and browsers do. */
const compressing: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set("Accept-Encoding", "gzip, br");
  return fetch(input, { ...init, headers });
};

describe("clients that ask for compression", () => {
  it("the v2 client on 2026-07-28 with list-changed handlers connects in under 2 s and works", async () => {
    const client = new V2Client({ name: "citydaily-test-v2-listchanged", version: "1.0.0" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
      listChanged: { tools: { onChanged: () => {} }, prompts: { onChanged: () => {} }, resources: { onChanged: () => {} } },
    });
    const started = performance.now();
    await client.connect(new V2Transport(new URL(`${server.url}/mcp`), { fetch: compressing }));
    try {
      expect(performance.now() - started).toBeLessThan(2000);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("get_city");
      const r = await client.callTool({ name: "get_archive", arguments: { slug: "boise-idaho", date: "2026-11-20" } }) as { content: Array<{ text: string }> };
      expect(r.content[0].text).toContain("Boise: frost, then sun");
      expect(performance.now() - started).toBeLessThan(2000);
    } finally {
      await client.close();
    }
  });

  it.each(CLIENTS)("the %s client connects in under 2 s", async (_revision, connect) => {
    const started = performance.now();
    const c = await connect(`${server.url}/mcp`, compressing);
    try {
      expect((await c.client.listTools()).tools.length).toBeGreaterThan(5);
      expect(performance.now() - started).toBeLessThan(2000);
    } finally {
      await c.close();
    }
  });

  it("a 2025-era client's answers come as one JSON body, so they are compressed: tools/list in a fraction of its size", async () => {
    // 2025-06-18: no request of this file asked for it before, so the first answer is made, not replayed.
    for (const id of [1, 2]) {
      const { headers, bytes } = await new Promise<{ headers: http.IncomingHttpHeaders; bytes: Buffer }>((resolve, reject) => {
        const req = http.request(`${server.url}/mcp`, {
          method: "POST",
          headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "Accept-Encoding": "br", "MCP-Protocol-Version": "2025-06-18" },
        }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ headers: res.headers, bytes: Buffer.concat(chunks) }));
        });
        req.on("error", reject);
        req.end(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", params: {} }));
      });
      expect(headers["content-type"], `answer ${id}`).toMatch(/^application\/json/);
      expect(headers["content-encoding"], `answer ${id}`).toBe("br");
      const json = zlib.brotliDecompressSync(bytes).toString("utf8");
      const msg = JSON.parse(json) as { id: number; result: { tools: Array<{ name: string }> } };
      expect(msg.id).toBe(id);
      expect(msg.result.tools.map((t) => t.name)).toContain("get_city");
      expect(json.length).toBeGreaterThan(20_000);
      expect(bytes.length).toBeLessThan(json.length / 4);
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  it("a subscriptions/listen stream arrives as it is written: not compressed, not held back", async () => {
    // Raw HTTP, so the bytes are seen as they come (fetch would decode them).
    const body = JSON.stringify({
      jsonrpc: "2.0", id: 1, method: "subscriptions/listen",
      params: { notifications: { toolsListChanged: true }, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} } },
    });
    const started = performance.now();
    const first = await new Promise<{ headers: http.IncomingHttpHeaders; chunk: string }>((resolve, reject) => {
      const req = http.request(`${server.url}/mcp`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "Accept-Encoding": "gzip, br", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen" },
      }, (res) => {
        res.once("data", (chunk: Buffer) => {
          resolve({ headers: res.headers, chunk: chunk.toString("utf8") });
          req.destroy();
        });
      });
      req.on("error", (err) => (err.message.includes("socket hang up") ? undefined : reject(err)));
      req.setTimeout(5000, () => reject(new Error("no event within 5 s")));
      req.end(body);
    });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(first.headers["content-type"]).toMatch(/^text\/event-stream/);
    expect(first.headers["content-encoding"]).toBeUndefined();
    expect(first.chunk).toMatch(/^(event|data|id|:)/m);
  });
});

describe("GET /mcp", () => {
  it("shows a browser the endpoint and how to add it to common clients", async () => {
    const res = await fetch(`${server.url}/mcp`, { headers: { Accept: "text/html,application/xhtml+xml" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await res.text();
    expect(html).toContain(`<code>${server.url}/mcp</code>`);
    expect(html).toContain(`claude mcp add --transport http citydaily ${server.url}/mcp`);
    // The JSON snippets as a reader sees them (the page escapes their quotes).
    expect(unescapeHtml(html)).toContain(`"mcpServers": {`);
    expect(html).toContain("<code>subscribe_city</code>");
  });

  it("shows curl (Accept: */*) the same page", async () => {
    const res = await fetch(`${server.url}/mcp`, { headers: { Accept: "*/*" } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(`<code>${server.url}/mcp</code>`);
  });

  it("an MCP client opening an SSE stream gets 405: the server keeps no sessions and sends nothing unasked", async () => {
    const res = await fetch(`${server.url}/mcp`, { headers: { Accept: "text/event-stream" } });
    expect(res.status).toBe(405);
  });
});

/**
 * A second server process (`node api/server.ts`) of the same deployment: same data directory, same
 * public BASE_URL. Resolves once it listens.
 */
async function startServerProcess(dataDir: string, baseUrl: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, "api/server.ts")], {
    env: { ...process.env, DATA_DIR: dataDir, BASE_URL: baseUrl, HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "info", MORNING_SCHEDULE: "off", MAIL_SENDER: "off", OPEN_METEO_URL: "http://127.0.0.1:9" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = readline.createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`server process exited with ${code}`)));
    lines.on("line", (line) => {
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      if (entry.msg === "citydaily listening" && entry.url) resolve(entry.url);
    });
  });
  lines.removeAllListeners("line");
  lines.on("line", () => {}); // keep draining its request log
  return {
    url,
    stop: () => new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    }),
  };
}

describe("statelessness", () => {
  let other: { url: string; stop: () => Promise<void> };
  beforeAll(async () => {
    other = await startServerProcess(server.dataDir, server.url);
  }, 60_000);
  afterAll(async () => {
    await other?.stop();
  });

  it.each(CLIENTS)("two server processes answer alternate requests of one %s client", async (_revision, connect) => {
    const hits = { [server.url]: 0, [other.url]: 0 };
    let n = 0;
    const alternate: typeof fetch = (input, init) => {
      const target = n++ % 2 === 0 ? server.url : other.url;
      hits[target]++;
      const url = new URL(input instanceof Request ? input.url : String(input));
      return fetch(target + url.pathname + url.search, init);
    };
    const c = await connect(`${server.url}/mcp`, alternate);
    try {
      for (let i = 0; i < 3; i++) {
        const { tools } = await c.client.listTools();
        expect(tools.map((t) => t.name)).toContain("get_archive");
        const r = await c.client.callTool({ name: "get_archive", arguments: { slug: "boise-idaho", date: "2026-11-20" } }) as { isError?: boolean; content: Array<{ text: string }> };
        expect(r.isError).toBeFalsy();
        expect(r.content[0].text).toContain("Boise: frost, then sun");
      }
    } finally {
      await c.close();
    }
    // A 2026-07-28 client keeps tools/list for its time to live (an hour), so it asks fewer times.
    expect(hits[server.url]).toBeGreaterThanOrEqual(2);
    expect(hits[other.url]).toBeGreaterThanOrEqual(2);
    expect(hits[server.url] + hits[other.url]).toBeGreaterThanOrEqual(5);
  });
});

describe("rate limit", () => {
  it("subscribe_city takes from the same per-address bucket as POST /api/subscribe", async () => {
    const limited = await startTestServer({ MAIL_SENDER: "off", SUBSCRIBE_RATE_LIMIT: "3", SUBSCRIBE_RATE_WINDOW_SECONDS: "600" });
    const c = await CLIENTS[1][1](`${limited.url}/mcp`);
    try {
      const boise = { city: "Boise", state: "Idaho", slug: "boise-idaho" };
      expect((await limited.post("/api/subscribe", { ...boise, email: "h1@example.org" })).status).toBe(200);
      const first = await c.client.callTool({ name: "subscribe_city", arguments: { ...boise, email: "m1@example.org" } }) as { isError?: boolean };
      expect(first.isError).toBeFalsy();
      expect((await limited.post("/api/subscribe", { ...boise, email: "h2@example.org" })).status).toBe(200);
      // The bucket of 3 is empty: MCP and HTTP are both refused, with the same code and wait.
      const refused = await c.client.callTool({ name: "subscribe_city", arguments: { ...boise, email: "m2@example.org" } }) as { isError?: boolean; content: Array<{ text: string }> };
      expect(refused.isError).toBe(true);
      const problem = JSON.parse(refused.content[0].text) as { code: string; status: number; retryAfter: number };
      expect(problem).toMatchObject({ code: "rate_limited", status: 429 });
      // Over MCP the wait is a field of the problem, and the resolution says to read it (MCP has no headers).
      expect((problem as unknown as { resolution: string }).resolution).toContain("`retryAfter`");
      expect((problem as unknown as { resolution: string }).resolution).not.toMatch(/header/i);
      expect(problem.retryAfter).toBeGreaterThanOrEqual(1);
      const http = await limited.post("/api/subscribe", { ...boise, email: "h3@example.org" });
      expect(http.status).toBe(429);
      expect(Number(http.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      const stored = limited.ctx.db.prepare("SELECT email FROM subscribers ORDER BY email").pluck().all();
      expect(stored).toEqual(["h1@example.org", "h2@example.org", "m1@example.org"]);
      // Reads are never limited.
      const read = await c.client.callTool({ name: "get_city", arguments: { slug: "boise-idaho" } }) as { isError?: boolean };
      expect(read.isError).toBeFalsy();
    } finally {
      await c.close();
      await limited.stop();
    }
  });
});
