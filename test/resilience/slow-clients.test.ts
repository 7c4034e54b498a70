import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// Slow clients (trickling headers or a body) must not hold the server: other requests are answered
// meanwhile, and each slow connection is answered 408 and closed once its time limit passes.

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ MAIL_SENDER: "off", SUBSCRIBE_RATE_LIMIT: "100000", HEADERS_TIMEOUT_MS: "1000", REQUEST_TIMEOUT_MS: "2000" });
});
afterAll(async () => {
  await server?.stop();
});

interface Trickler { answer: Promise<string>; stop: () => void }

/** Opens a connection that sends `head` and then one byte of `rest` every `everyMs`, forever. */
function trickle(head: string, byte: string, everyMs: number): Trickler {
  const { port } = new URL(server.url);
  let timer: NodeJS.Timeout | undefined;
  const socket = net.connect(Number(port), "127.0.0.1");
  const answer = new Promise<string>((resolve) => {
    let data = "";
    socket.on("connect", () => {
      socket.write(head);
      timer = setInterval(() => { if (!socket.destroyed) socket.write(byte); }, everyMs);
    });
    socket.on("data", (c) => { data += c.toString("latin1"); });
    socket.on("close", () => { clearInterval(timer); resolve(data || "closed"); });
    socket.on("error", () => {});
  });
  return { answer, stop: () => { clearInterval(timer); socket.destroy(); } };
}

describe("slow clients", () => {
  it("50 trickled bodies and 10 trickled headers neither stall other requests nor outlive their time limits", async () => {
    const bodies = Array.from({ length: 50 }, () => trickle(
      "POST /api/subscribe HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n{\"email\": \"", "a", 100));
    const headers = Array.from({ length: 10 }, () => trickle("GET /api/cities HTTP/1.1\r\nHost: x\r\nX-Slow: ", "b", 100));
    try {
      // While all 60 are open, ordinary readers and a subscriber are served.
      for (let i = 0; i < 20; i++) {
        const r = await server.get(i % 2 ? "/api/cities" : "/api/search?q=weather");
        expect(r.status).toBe(200);
        await r.arrayBuffer();
      }
      const sub = await server.post("/api/subscribe", { email: "fast@example.org", city: "Boise", state: "Idaho", slug: "boise-idaho" });
      expect(sub.status).toBe(200);

      const answers = await Promise.all([...bodies, ...headers].map((t) => t.answer));
      for (const a of answers) expect(a.split("\r\n")[0]).toBe("HTTP/1.1 408 Request Timeout");
    } finally {
      for (const t of [...bodies, ...headers]) t.stop();
    }
    // Nothing a trickler sent was stored; the server still answers.
    expect(server.ctx.db.prepare("SELECT email FROM subscribers").pluck().all()).toEqual(["fast@example.org"]);
    expect((await server.get("/api/cities")).status).toBe(200);
  });
});
