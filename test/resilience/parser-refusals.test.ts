import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.ts";

/**
 * Requests Node's HTTP parser refuses before the app runs (the server's `clientError` hook answers
 * them): under /api a problem+json body like every other /api failure, elsewhere a plain page, and
 * never a write to a socket that is gone. Sent over raw sockets, since no HTTP client sends these.
 */
let server: TestServer;
let port: number;
const errors: unknown[] = [];

beforeAll(async () => {
  server = await startTestServer({ MAIL_SENDER: "off", HEADERS_TIMEOUT_MS: "1000", REQUEST_TIMEOUT_MS: "1500" });
  port = Number(new URL(server.url).port);
  const original = server.ctx.log.error.bind(server.ctx.log);
  server.ctx.log.error = ((...args: unknown[]) => {
    errors.push(args);
    return (original as (...a: unknown[]) => void)(...args);
  }) as typeof server.ctx.log.error;
});
afterAll(async () => {
  await server?.stop();
});

/** Sends raw bytes, reads until the server closes (or `ms` pass). */
function raw(bytes: string | Buffer, ms = 3000): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let got = "";
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(got);
    };
    const timer = setTimeout(done, ms);
    socket.on("data", (c) => (got += c.toString("latin1")));
    socket.on("end", done);
    socket.on("close", done);
    socket.on("error", done);
    socket.write(bytes);
  });
}

function parse(answer: string) {
  const [head, ...rest] = answer.split("\r\n\r\n");
  const [statusLine, ...lines] = head.split("\r\n");
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
  return { status: Number(statusLine.split(" ")[1]), headers, body: rest.join("\r\n\r\n") };
}

const big = "a".repeat(20 * 1024);
const cases: Array<[string, (path: string) => string, number, string]> = [
  ["an invalid method token", (p) => `GE(T ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, 400, "validation_error"],
  ["Transfer-Encoding with Content-Length", (p) => `POST ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n`, 400, "validation_error"],
  ["a header with a control byte", (p) => `GET ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Note: a\x01b\r\n\r\n`, 400, "validation_error"],
  ["a header name with a byte not allowed", (p) => `GET ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\nX(Bad): 1\r\n\r\n`, 400, "validation_error"],
  ["headers over 16 KB", (p) => `GET ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${big}\r\n\r\n`, 431, "headers_too_large"],
];

describe("requests the HTTP parser refuses", () => {
  it.each(cases)("%s under /api: problem+json with the status, closed", async (_name, request, status, code) => {
    const r = parse(await raw(request("/api/cities?x=1")));
    expect(r.status).toBe(status);
    expect(r.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(r.headers.connection).toBe("close");
    expect(r.headers["api-version"]).toBe("v1");
    expect(Number(r.headers["content-length"])).toBe(Buffer.byteLength(r.body));
    const body = JSON.parse(r.body) as { code: string; status: number; type: string; detail: string; error: string; issues?: unknown[] };
    expect(body).toMatchObject({ code, status, type: `${server.url}/developers#error-${code}` });
    expect(body.error).toBe(body.detail);
    expect(body.issues !== undefined).toBe(code === "validation_error");
  });

  it.each(cases)("%s elsewhere: a plain page with the status", async (_name, request, status) => {
    const r = parse(await raw(request("/boise-idaho")));
    expect(r.status).toBe(status);
    expect(r.headers["content-type"]).toMatch(/^text\/html/);
    expect(r.body).toMatch(/<title>[^<]+<\/title>/);
    expect(r.body).toContain('href="/"');
  });

  it("a body not sent in time under /api: 408 problem+json request_timeout", async () => {
    const r = parse(await raw("POST /api/subscribe HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"email\": ", 5000));
    expect(r.status).toBe(408);
    expect(r.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(r.body)).toMatchObject({ code: "request_timeout", status: 408 });
  });

  it("headers not sent in time: 408 (Node keeps no path of a request whose headers it has not finished: a plain page)", async () => {
    const r = parse(await raw("GET /api/cities HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ", 5000));
    expect(r.status).toBe(408);
    expect(r.headers["content-type"]).toMatch(/^text\/html/);
  });

  it("a client gone before the answer (reset mid-headers) is written nothing and logs no error; the server keeps serving", async () => {
    for (let i = 0; i < 20; i++) {
      await new Promise<void>((resolve) => {
        const socket = net.connect(port, "127.0.0.1", () => {
          socket.write(`GET /api/cities HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${"b".repeat(64 * 1024)}`);
          socket.resetAndDestroy();
          resolve();
        });
        socket.on("error", () => resolve());
      });
    }
    await new Promise((r) => setTimeout(r, 200));
    expect(errors).toEqual([]);
    expect((await server.get("/api/cities")).status).toBe(200);
  });
});
