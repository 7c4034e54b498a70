import http from "node:http";
import type { AddressInfo } from "node:net";
import { H3, toNodeHandler } from "h3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compression } from "../../api/http/compression.ts";

// A streamed answer is never compressed or read whole first: an event stream (a modern MCP client's
// `subscriptions/listen`) or anything a handler marks `no-transform`. Raw HTTP, so the bytes are seen
// as they come. The streams here stay open, as a listen stream does: buffering them would never end.

let server: http.Server;
let url: string;

/** A response that writes `first` now and then nothing more until the client leaves. */
function openStream(first: string, headers: Record<string, string>): Response {
  return new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode(first)) }), { headers });
}

beforeAll(async () => {
  const app = new H3();
  app.use(compression());
  app.get("/events", () => openStream(`event: message\ndata: ${"x".repeat(4000)}\n\n`, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" }));
  app.get("/streamed-text", () => openStream(`${"line of text\n".repeat(400)}`, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-transform" }));
  app.get("/text", () => new Response("line of text\n".repeat(400), { headers: { "Content-Type": "text/plain; charset=utf-8" } }));
  server = http.createServer(toNodeHandler(app));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** The headers and the first chunk of a response, or a failure after `ms`. */
function firstChunk(path: string, ms = 2000): Promise<{ headers: http.IncomingHttpHeaders; chunk: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${url}${path}`, { headers: { "Accept-Encoding": "gzip, br" } }, (res) => {
      res.once("data", (chunk: Buffer) => {
        resolve({ headers: res.headers, chunk });
        req.destroy();
      });
    });
    req.on("error", () => {});
    req.setTimeout(ms, () => {
      req.destroy();
      reject(new Error(`${path}: nothing within ${ms} ms`));
    });
  });
}

describe("streamed responses and compression", () => {
  it("passes an event stream through as it is written, uncompressed", async () => {
    const { headers, chunk } = await firstChunk("/events");
    expect(headers["content-type"]).toBe("text/event-stream");
    expect(headers["content-encoding"]).toBeUndefined();
    expect(chunk.toString("utf8")).toMatch(/^event: message\ndata: x+/);
  });

  it("passes a no-transform stream through as it is written, uncompressed", async () => {
    const { headers, chunk } = await firstChunk("/streamed-text");
    expect(headers["content-encoding"]).toBeUndefined();
    expect(chunk.toString("utf8")).toMatch(/^line of text\n/);
  });

  it("still compresses an ordinary text answer", async () => {
    const { headers } = await firstChunk("/text");
    expect(headers["content-encoding"]).toBe("br");
  });
});
