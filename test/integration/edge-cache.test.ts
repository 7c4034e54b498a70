import zlib from "node:zlib";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseFile } from "../../src/store/db.ts";
import { buildSite, publishEditions } from "../../src/services/site/publish.ts";
import { addEdition, addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// The edge cache (api/http/edge-cache.ts) answers repeated public reads before h3 sees them. These prove
// its answers are the app's own, byte for byte, per encoding and per negotiated type, and that no
// reader gets one older than the data or the published site.

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  addSubscriber(server.ctx.db, "boise-idaho", "a@example.org");
  addEdition(server.ctx.db, "boise-idaho", "2026-11-20", "Frost tonight in Boise");
  await buildSite(server.ctx);
}, 120_000);
afterAll(() => server.stop());

const withoutPerRequest = (res: Response) =>
  Object.fromEntries([...res.headers].filter(([k]) => !["date", "x-request-id", "cache-status", "connection", "keep-alive"].includes(k)));

/** Asks until the edge answers (the first request is the app's and stores it). */
async function hit(path: string, init?: RequestInit): Promise<Response> {
  for (let i = 0; i < 5; i++) {
    const res = await server.get(path, init);
    if (res.headers.get("cache-status") === "citydaily-edge; hit") return res;
    await res.arrayBuffer();
  }
  throw new Error(`${path} was never answered by the edge`);
}

describe("the edge cache", () => {
  it("answers a repeated read with the app's exact headers and bytes, and the caller's own request id", async () => {
    for (const path of ["/api/city/boise-idaho", "/api/cities", "/boise-idaho", "/boise-idaho/2026-11-20", "/openapi.json", "/boise-idaho.md"]) {
      const first = await server.get(path);
      expect(first.status, path).toBe(200);
      expect(first.headers.get("cache-status"), path).toBe("citydaily-edge; fwd=miss; stored");
      const firstBody = await first.text();
      const again = await hit(path, { headers: { "X-Request-Id": "trace-42" } });
      expect(again.headers.get("x-request-id")).toBe("trace-42");
      expect(withoutPerRequest(again), path).toEqual(withoutPerRequest(first));
      expect(await again.text(), path).toBe(firstBody);
    }
    const a = await hit("/api/cities"), b = await hit("/api/cities");
    expect(a.headers.get("x-request-id")).not.toBe(b.headers.get("x-request-id"));
  });

  it("keeps one answer per encoding and per negotiated type", async () => {
    const plain = await (await hit("/openapi.json", { headers: { "Accept-Encoding": "identity" } })).text();
    const br = await hit("/openapi.json", { headers: { "Accept-Encoding": "br" } });
    expect(br.headers.get("content-encoding")).toBe("br");
    // fetch decodes for us; the bytes it decoded are the plain answer's.
    expect(await br.text()).toBe(plain);
    const gz = await hit("/openapi.json", { headers: { "Accept-Encoding": "gzip" } });
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect(await gz.text()).toBe(plain);

    const html = await hit("/boise-idaho", { headers: { Accept: "text/html" } });
    expect(html.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await html.text()).toMatch(/^<!doctype html>/i);
    const md = await hit("/boise-idaho", { headers: { Accept: "text/markdown" } });
    expect(md.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(await md.text()).toContain("Boise");
  });

  it("leaves conditional requests, HEAD and writes to the app", async () => {
    const { headers } = await hit("/api/city/boise-idaho");
    const conditional = await server.get("/api/city/boise-idaho", { headers: { "If-None-Match": headers.get("etag")! } });
    expect(conditional.status).toBe(304);
    expect(conditional.headers.get("cache-status")).toBeNull();
    const head = await server.get("/api/city/boise-idaho", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("cache-status")).toBeNull();
    expect(head.headers.get("etag")).toBe(headers.get("etag"));
  });

  it("shows a subscription made over HTTP to the very next read", async () => {
    const before = (await (await hit("/api/city/boise-idaho")).json()) as { subscriberCount: number };
    const res = await server.post("/api/subscribe", { email: "edge@example.org", city: "Boise", state: "Idaho", slug: "boise-idaho" });
    expect(res.status).toBe(200);
    const after = await server.get("/api/city/boise-idaho");
    expect(after.headers.get("cache-status")).not.toBe("citydaily-edge; hit");
    expect(((await after.json()) as { subscriberCount: number }).subscriberCount).toBe(before.subscriberCount + 1);
  });

  it("shows another process's commit and a new published generation", async () => {
    const dates = async () => ((await (await server.get("/api/city/boise-idaho")).json()) as { archives: Array<{ date: string }> }).archives.map((a) => a.date);
    await hit("/api/city/boise-idaho");
    const other = new Database(databaseFile(server.dataDir));
    let id: number;
    try {
      id = addEdition(other, "boise-idaho", "2026-11-21", "Edge test: chinook winds")!;
    } finally {
      other.close();
    }
    expect(await dates()).toEqual(["2026-11-21", "2026-11-20"]);

    // The page was published before the new edition: the edge must not keep answering with it.
    expect(await (await hit("/boise-idaho")).text()).not.toContain("chinook winds");
    await publishEditions(server.ctx, [id]);
    const page = await server.get("/boise-idaho");
    expect(page.headers.get("cache-status")).not.toBe("citydaily-edge; hit");
    expect(await page.text()).toContain("chinook winds");
  });

  it("keeps nothing an error or a private answer carries", async () => {
    for (let i = 0; i < 3; i++) {
      const missing = await server.get("/api/city/atlantis-idaho");
      expect(missing.status).toBe(404);
      expect(missing.headers.get("cache-status")).toBeNull();
      await missing.arrayBuffer();
    }
  });

  it("answers brotli bytes that decode to the app's page", async () => {
    const plain = await (await hit("/boise-idaho")).text();
    const raw = await new Promise<Buffer>((resolve, reject) => {
      import("node:http").then(({ get }) => get(`${server.url}/boise-idaho`, { headers: { "Accept-Encoding": "br" } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve(Buffer.concat(chunks)));
      }).on("error", reject));
    });
    expect(zlib.brotliDecompressSync(raw).toString()).toBe(plain);
  });
});
