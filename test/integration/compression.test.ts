import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { siteDirs } from "../../src/publish/site-dir.ts";
import { buildSite } from "../../src/services/site/publish.ts";
import { addEdition } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ MAIL_SENDER: "off" });
  addEdition(server.ctx.db, "boise-idaho", "2026-11-20", "Boise: light rain after noon", "Light rain after noon. ".repeat(50));
  await buildSite(server.ctx);
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

interface Raw { status: number; headers: http.IncomingHttpHeaders; bytes: Buffer }

/** A request whose body is read exactly as it came over the wire (fetch would decode it). */
function raw(path: string, headers: Record<string, string> = {}, method = "GET"): Promise<Raw> {
  return new Promise((resolve, reject) => {
    http.get(`${server.url}${path}`, { headers, method }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
    }).on("error", reject);
  });
}

const decode = (r: Raw) =>
  r.headers["content-encoding"] === "br" ? zlib.brotliDecompressSync(r.bytes) : r.headers["content-encoding"] === "gzip" ? zlib.gunzipSync(r.bytes) : r.bytes;

const PATHS = ["/", "/boise-idaho", "/boise-idaho/2026-11-20", "/boise-idaho.md", "/place-index.json", "/feed.xml", "/api/cities-census", "/openapi.json"];

describe("compression on the wire", () => {
  // First in this file: the server has compressed nothing yet.
  it("sends the place index compressed at publish time, not by the first reader", async () => {
    const plain = await raw("/place-index.json");
    const etag = String(plain.headers.etag);
    const store = path.join(siteDirs(server.dataDir).root, "compressed");
    const stored = { br: path.join(store, `${etag.replace(/"/g, "")}.br`), gzip: path.join(store, `${etag.replace(/"/g, "")}.gz`) };
    expect(zlib.gunzipSync(fs.readFileSync(stored.gzip)).equals(plain.bytes)).toBe(true);
    // Replace the copy with one the server would never make itself (quality 1): it must send exactly that.
    const quick = zlib.brotliCompressSync(plain.bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } });
    expect(quick.equals(fs.readFileSync(stored.br))).toBe(false);
    fs.writeFileSync(stored.br, quick);
    const br = await raw("/place-index.json", { "Accept-Encoding": "br" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.bytes.equals(quick)).toBe(true);
    // Small files have no copies: they are compressed once, on their first request.
    const page = await raw("/boise-idaho");
    expect(fs.existsSync(path.join(store, `${String(page.headers.etag).replace(/"/g, "")}.br`))).toBe(false);
  });

  it("serves brotli or gzip by Accept-Encoding, the same bytes once decoded, with Vary and a validator per encoding", async () => {
    const sizes: string[] = [];
    for (const path of PATHS) {
      const plain = await raw(path);
      expect(plain.status, path).toBe(200);
      expect(plain.headers["content-encoding"], path).toBeUndefined();
      expect(plain.headers.vary, path).toMatch(/Accept-Encoding/);
      for (const [accept, encoding] of [["br, gzip", "br"], ["gzip, deflate", "gzip"], ["gzip;q=1, br;q=0.5", "gzip"], ["br;q=0, gzip;q=0", undefined], ["identity", undefined]] as const) {
        const r = await raw(path, { "Accept-Encoding": accept });
        expect(r.headers["content-encoding"], `${path} ${accept}`).toBe(encoding);
        expect(decode(r).equals(plain.bytes), `${path} ${accept}`).toBe(true);
        if (encoding) {
          expect(r.bytes.length, path).toBeLessThan(plain.bytes.length);
          expect(r.headers.etag).not.toBe(plain.headers.etag);
          expect(r.headers.etag).toBe(plain.headers.etag!.replace(/"$/, `-${encoding === "br" ? "br" : "gz"}"`));
        }
      }
      const br = await raw(path, { "Accept-Encoding": "br" });
      sizes.push(`${path}: ${plain.bytes.length} -> br ${br.bytes.length}`);
    }
    console.log(`bytes on the wire: ${sizes.join("; ")}`);
  });

  it("revalidates a compressed copy with 304, naming the validator the client holds", async () => {
    const first = await raw("/place-index.json", { "Accept-Encoding": "br" });
    const again = await raw("/place-index.json", { "Accept-Encoding": "br", "If-None-Match": first.headers.etag! });
    expect(again.status).toBe(304);
    expect(again.bytes.length).toBe(0);
    expect(again.headers.etag).toBe(first.headers.etag);
    // The identity validator also matches: it names the same content.
    const plain = await raw("/api/cities-census");
    expect((await raw("/api/cities-census", { "Accept-Encoding": "gzip", "If-None-Match": plain.headers.etag! })).status).toBe(304);
  });

  it("leaves small bodies, errors and non-text types alone", async () => {
    const small = await raw("/api/cities", { "Accept-Encoding": "br" });
    expect(small.bytes.length).toBeLessThan(1024);
    expect(small.headers["content-encoding"]).toBeUndefined();
    const problem = await raw("/api/city/springfield-kansas", { "Accept-Encoding": "br" });
    expect(problem.status).toBe(404);
    expect(problem.headers["content-encoding"]).toBeUndefined();
    expect(JSON.parse(problem.bytes.toString()).code).toBe("city_not_found");
  });
});
