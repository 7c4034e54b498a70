import crypto from "node:crypto";
import net from "node:net";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subscriberToken } from "../../src/services/readers/unsubscribe.ts";
import { EVENT, leaseTown, PINNED_NOW } from "../helpers/commerce.ts";
import { askForLink, Jar, mailedLink } from "../helpers/operator.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";

// What the request log and /metrics keep, as a security tester read them from the real server: no
// path's secret (a reader's token, a sign-in or resubscribe link, a checkout session, an order's
// id) in any line, whatever the method or answer; and a refused token request at /oauth/token
// counted as what it was (400, route /oauth/token), not as a 200 of `other`. docs/security.md has the table.

const OPERATOR = "logs-operator@example.com";
const READER = "logs-reader@example.org";
let sink: SmtpSink;
let server: TestServer;
/** Every line the server logged, as written (JSON). */
const written: string[] = [];
const requests = () => written.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === "request");

beforeAll(async () => {
  sink = await new SmtpSink().start();
  server = await startTestServer({ SMTP_URL: sink.url, MAIL_SENDER: "off", NOW: PINNED_NOW, METRICS_PORT: "0", SUBSCRIBE_RATE_LIMIT: "1000" });
  server.ctx.log = pino({ level: "info" }, { write: (line: string) => void written.push(line) });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
});

/** Asks for `path` with `method`, reading the answer to its end, and returns the status. */
async function ask(method: string, path: string, body?: string): Promise<number> {
  const res = await fetch(`${server.url}${path}`, { method, body, redirect: "manual", headers: body ? { "Content-Type": "application/x-www-form-urlencoded" } : {} });
  await res.arrayBuffer();
  return res.status;
}

describe("the request log keeps no secret of a path", () => {
  it("a reader's token, the weekly and unsubscribe links, resubscribe and sign-in links, checkout sessions and order ids: asked with every method, none is in the log", async () => {
    addSubscriber(server.ctx.db, "boise-idaho", READER);
    const sub = server.ctx.db.prepare("SELECT id FROM subscribers WHERE email = ?").get(READER) as { id: number };
    const token = subscriberToken(server.ctx, sub.id, READER);
    // The operator's one-time sign-in link, as mailed (a leased town, asked for on /operator).
    await leaseTown(server, OPERATOR);
    expect((await askForLink(server, new Jar(), OPERATOR)).status).toBe(200);
    const signIn = new URL(await mailedLink(server, sink, OPERATOR)).pathname.split("/").at(-1)!;
    // A listing bought on the local checkout: its session and its order's id.
    const order = await (await server.post("/api/listing-checkout", EVENT)).json() as { orderId: string; checkoutUrl: string };
    const session = new URL(order.checkoutUrl).pathname.split("/").at(-1)!;
    // A resubscribe link's token and an old operator link (base64 of the address and a MAC) have the same shape as real ones.
    const resubscribe = crypto.randomBytes(32).toString("base64url");
    const oldOperator = `${Buffer.from(OPERATOR).toString("base64url")}.${crypto.randomBytes(16).toString("base64url")}`;

    const asked: Array<[string, string, number?]> = [
      ["GET", `/api/subscriptions/${token}`, 200], ["GET", `/api/v1/subscriptions/${token}`, 200],
      ["POST", `/api/subscriptions/${token}/cities/boise-idaho`], ["DELETE", `/api/subscriptions/${token}/cities/boise-idaho`],
      ["GET", `/subscriptions/${token}`, 200], ["PUT", `/subscriptions/${token}`], ["GET", `/weekly/${token}`, 200],
      ["GET", `/unsubscribe/${token}`, 200], ["GET", `/unsubscribe/${token}/`],
      ["GET", `/resubscribe/${resubscribe}`],
      ["GET", `/operator/sign-in/${signIn}`, 200], ["GET", `/operator/${oldOperator}`, 404],
      ["GET", `/checkout/${session}`, 200], ["POST", `/checkout/${session}/cancel`],
      ["GET", `/orders/${order.orderId}`, 200], ["GET", `/orders/${order.orderId}/numbers.csv`], ["GET", `/admin/orders/${order.orderId}`],
      // A slash written %2F routes nowhere, but the token it carries is still the reader's.
      ["GET", `/subscriptions%2F${token}`], ["GET", `/api%2Fsubscriptions%2f${token}`],
      // Last: it unsubscribes the reader.
      ["POST", `/unsubscribe/${token}`],
    ];
    for (const [method, path, status] of asked) {
      const got = await ask(method, path, method === "POST" ? "" : undefined);
      if (status) expect(got, `${method} ${path}`).toBe(status);
    }

    const lines = requests();
    expect(lines.length).toBeGreaterThanOrEqual(asked.length);
    const log = written.join("");
    for (const secret of [token, signIn, session, resubscribe, oldOperator]) expect(log, secret).not.toContain(secret);
    // The order's own lines name it ("listing order created"): staff trace an order by its id; its page's address is not logged.
    expect(JSON.stringify(lines)).not.toContain(order.orderId);
    // Each is still there, by its route's words: what was asked, and how it was answered.
    const logged = new Set(lines.map((l) => `${l.method} ${l.path}`));
    for (const line of [
      "GET /api/subscriptions/:token", "GET /api/v1/subscriptions/:token", "POST /api/subscriptions/:token/cities/boise-idaho",
      "GET /subscriptions/:token", "PUT /subscriptions/:token", "GET /weekly/:token", "GET /unsubscribe/:token", "GET /unsubscribe/:token/",
      "POST /unsubscribe/:token", "GET /resubscribe/:token", "GET /operator/sign-in/:token", "GET /operator/:token",
      "GET /checkout/:session", "POST /checkout/:session/cancel", "GET /orders/:id", "GET /orders/:id/numbers.csv", "GET /admin/orders/:id",
    ]) expect(logged, line).toContain(line);
  });

  it("a request the HTTP parser refuses (headers over 16 KB) is logged without its path's token", async () => {
    addSubscriber(server.ctx.db, "ely-nevada", READER);
    const sub = server.ctx.db.prepare("SELECT id FROM subscribers WHERE email = ? AND status = 'active'").get(READER) as { id: number };
    const token = subscriberToken(server.ctx, sub.id, READER);
    const { port } = new URL(server.url);
    const answer = await new Promise<string>((resolve) => {
      let got = "";
      const socket = net.connect(Number(port), "127.0.0.1", () => socket.write(`GET /subscriptions/${token} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${"a".repeat(20_000)}\r\n\r\n`));
      socket.on("data", (c) => (got += c));
      socket.on("error", () => resolve(got || "reset"));
      socket.on("close", () => resolve(got || "reset"));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    const refused = written.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === "request refused by the HTTP parser").at(-1);
    expect(refused).toMatchObject({ status: 431, path: "/subscriptions/:token" });
    expect(written.join("")).not.toContain(token);
  });

  it("a path without a secret is logged as asked", async () => {
    await ask("GET", "/api/city/boise-idaho");
    await ask("GET", "/go/boise-idaho/2026-11-22/abcdefghijklmnop?to=https%3A%2F%2Fexample.org%2F");
    const paths = requests().map((l) => l.path);
    expect(paths).toContain("/api/city/boise-idaho");
    expect(paths).toContain("/go/boise-idaho/2026-11-22/abcdefghijklmnop");
  });
});

/** The request-duration histogram's count for these labels, read from /metrics. */
async function counted(labels: Record<string, string>): Promise<number> {
  const text = await (await fetch(server.metricsUrl!)).text();
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  return text.split("\n")
    .filter((l) => l.startsWith("citydaily_http_request_duration_seconds_count{") && want.every((w) => l.includes(w)))
    .reduce((n, l) => n + Number(l.split(" ").at(-1)), 0);
}

describe("a refused token request is recorded as refused", () => {
  it("/oauth/token answering 400 (a refresh token that is not one) is logged 400, and counted route=\"/oauth/token\", status=\"400\"", async () => {
    const registered = await fetch(`${server.url}/oauth/register`, {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ client_name: "Log test", redirect_uris: ["http://127.0.0.1:9/callback"], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" }),
    });
    expect(registered.status).toBe(201);
    const { client_id } = await registered.json() as { client_id: string };
    const before = await counted({ route: "/oauth/token", status: "400" });
    const refused = await fetch(`${server.url}/oauth/token`, {
      method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", client_id, refresh_token: crypto.randomBytes(32).toString("base64url") }),
    });
    expect(refused.status).toBe(400);
    expect((await refused.json() as { error: string }).error).toBe("invalid_grant");

    const line = requests().filter((l) => l.path === "/oauth/token").at(-1);
    expect(line).toMatchObject({ method: "POST", status: 400 });
    expect(await counted({ method: "POST", route: "/oauth/token", status: "400" })).toBe(before + 1);
    expect(await counted({ route: "/oauth/register", status: "201" })).toBe(1);
    expect(await counted({ route: "other", status: "200", method: "POST" })).toBe(0);
  });

  it("the authorization server's other paths and the fediverse's are counted under their templates, never their ids", async () => {
    await ask("GET", "/oauth/jwks");
    await ask("GET", "/oauth/authorize/some-interaction-uid");
    await ask("GET", "/oauth/no/such/endpoint");
    await ask("GET", "/fediverse/towns/boise-idaho");
    await ask("GET", "/fediverse/towns/boise-idaho/outbox");
    await ask("GET", "/fediverse/towns/boise-idaho/editions/2026-11-22");
    const text = await (await fetch(server.metricsUrl!)).text();
    const routes = new Set([...text.matchAll(/^citydaily_http_request_duration_seconds_count\{[^}]*route="([^"]*)"/gm)].map((m) => m[1]));
    for (const route of ["/oauth/jwks", "/oauth/authorize/:id", "/oauth/*", "/fediverse/towns/:identifier", "/fediverse/towns/:identifier/outbox", "/fediverse/towns/:identifier/editions/:date"]) {
      expect([...routes], route).toContain(route);
    }
    expect(text).not.toContain("some-interaction-uid");
    expect(text).not.toContain("boise-idaho");
  });
});
