import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// The authorization server against what an attacker sends it, on a server whose BASE_URL is
// https://citydaily.test reached on 127.0.0.1: a poisoned Host or X-Forwarded-Host (every advertised
// URL stays BASE_URL's), client metadata documents asked by the dozen or 2 MB long (a limit per
// client address, the read cut at 5 KB, unused documents forgotten), and registrations of what
// docs/mcp.md says it refuses (plain http to another host, a client secret).

const BASE = "https://citydaily.test";
let server: TestServer;
let docs: DocumentServer;

interface Answer { status: number; headers: http.IncomingHttpHeaders; text: string }

/** Sends one request with `http.request`'s options and reads its whole answer as text. */
function request(target: string | http.RequestOptions, options: http.RequestOptions, body?: string): Promise<Answer> {
  const sized = { ...options, agent: false, headers: { ...options.headers, ...(body === undefined ? {} : { "Content-Length": String(Buffer.byteLength(body)) }) } };
  return new Promise((resolve, reject) => {
    const req = typeof target === "string" ? http.request(target, sized, onAnswer) : http.request({ ...target, ...sized }, onAnswer);
    function onAnswer(res: http.IncomingMessage) {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => { text += chunk; });
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    }
    req.on("error", reject);
    req.end(body);
  });
}

/** One request as sent (its own Host, X-Forwarded-* headers), from `localAddress` (127.0.0.x are all this machine). */
function send(path: string, opts: { method?: string; headers?: Record<string, string>; body?: string; from?: string } = {}): Promise<Answer> {
  const { method = "GET", headers = {}, body, from = "127.0.0.1" } = opts;
  return request(`${server.url}${path}`, { method, localAddress: from, headers }, body);
}

interface DocumentServer {
  url: string;
  /** Requests per path. */
  asked: Map<string, number>;
  /** Bytes of a big document written to the socket before the reader hung up, per path. */
  sent: Map<string, number>;
  close(): Promise<void>;
}

/**
 * The clients' side on 127.0.0.1: `/doc/{any}` a valid metadata document of its own URL, `/moved/{any}`
 * a redirect to `/doc/{any}`, `/big/{any}`
 * a 2 MB one sent in 16 KB chunks (no Content-Length), a chunk a millisecond, as long as the reader reads.
 */
async function startDocumentServer(): Promise<DocumentServer> {
  const asked = new Map<string, number>();
  const sent = new Map<string, number>();
  let base = "";
  const site = http.createServer((req, res) => {
    const path = new URL(req.url!, base).pathname;
    asked.set(path, (asked.get(path) ?? 0) + 1);
    if (path.startsWith("/doc/")) {
      res.writeHead(200, { "Content-Type": "application/json" });
      return res.end(JSON.stringify({ client_id: `${base}${path}`, client_name: "Document client", redirect_uris: [`${base}/callback`] }));
    }
    if (path.startsWith("/moved/")) {
      res.writeHead(302, { Location: `/doc${path.slice("/moved".length)}` });
      return res.end();
    }
    if (path.startsWith("/big/")) {
      const head = `{"client_id":"${base}${path}","client_name":"Big","redirect_uris":["${base}/callback"],"padding":"`;
      const total = 2 * 1024 * 1024;
      const chunk = Buffer.alloc(16 * 1024, "a");
      let written = 0;
      sent.set(path, 0);
      res.writeHead(200, { "Content-Type": "application/json" });
      res.write(head);
      written += head.length;
      const more = () => {
        if (res.destroyed || !res.writable) return;
        if (written + chunk.length >= total) {
          res.end('"}');
          sent.set(path, written + 2);
          return;
        }
        res.write(chunk);
        written += chunk.length;
        sent.set(path, written);
        setTimeout(more, 1);
      };
      res.on("close", () => sent.set(path, Math.min(written, sent.get(path) ?? written)));
      return more();
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  return {
    url: base, asked, sent,
    close: () => new Promise<void>((resolve) => { site.closeAllConnections(); site.close(() => resolve()); }),
  };
}

const challenge = () => crypto.createHash("sha256").update(crypto.randomBytes(32).toString("base64url")).digest("base64url");

/** An authorization request from a client whose metadata document is `doc`, with a redirect_uri it never registered. */
const badAuthorize = (doc: string, from: string) => send(`/oauth/authorize?${new URLSearchParams({
  response_type: "code", client_id: doc, redirect_uri: "http://127.0.0.1:1/not-registered", scope: "town:read",
  code_challenge: challenge(), code_challenge_method: "S256", resource: `${BASE}/mcp`,
})}`, { from });
const revokeAs = (doc: string, from: string) => send("/oauth/revoke", {
  method: "POST", from, headers: { "Content-Type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams({ client_id: doc, token: "never-issued" }).toString(),
});
/** The OAuth error of an answer: its JSON's `error`, or the code on the error page a browser gets (the authorization endpoint's). */
const errorOf = (a: Answer) => /json/.test(String(a.headers["content-type"])) ? (JSON.parse(a.text) as { error: string }).error : /<p>([a-z_]+):/.exec(a.text)?.[1];
const documentRows = () => server.ctx.db.prepare("SELECT id, expires_at FROM oauth_models WHERE model = 'Client' AND id LIKE 'document %'").all() as Array<{ id: string; expires_at: number | null }>;

beforeAll(async () => {
  docs = await startDocumentServer();
  server = await startTestServer({ BASE_URL: BASE, FEEDS_ALLOW_ADDRESSES: "127.0.0.1" });
});
afterAll(async () => {
  await server?.stop();
  await docs?.close();
});

describe("every advertised URL is BASE_URL's, whatever Host the request names", () => {
  const poisons: Array<[string, Record<string, string>]> = [
    ["Host", { Host: "evil.example" }],
    ["X-Forwarded-Host", { "X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "http" }],
    ["an absolute request target", {}],
  ];
  /** Every URL-valued string in a JSON document. */
  const urlsIn = (value: unknown): string[] => typeof value === "string" ? (/^[a-z]+:\/\//i.test(value) ? [value] : [])
    : Array.isArray(value) ? value.flatMap(urlsIn) : value && typeof value === "object" ? Object.values(value).flatMap(urlsIn) : [];

  for (const [what, headers] of poisons) {
    it(`the authorization server's metadata, with ${what} poisoned`, async () => {
      for (const path of ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]) {
        const target = what === "an absolute request target" ? `http://evil.example${path}` : path;
        const res = await sendRaw(target, headers);
        expect(res.status).toBe(200);
        const meta = JSON.parse(res.text) as Record<string, unknown>;
        expect(meta).toMatchObject({
          issuer: BASE, authorization_endpoint: `${BASE}/oauth/authorize`, token_endpoint: `${BASE}/oauth/token`,
          registration_endpoint: `${BASE}/oauth/register`, revocation_endpoint: `${BASE}/oauth/revoke`, jwks_uri: `${BASE}/oauth/jwks`,
        });
        const urls = urlsIn(meta);
        expect(urls.length).toBeGreaterThan(5);
        for (const url of urls) expect(url.startsWith(`${BASE}/`) || url === BASE).toBe(true);
        // Built from BASE_URL alone, it may be kept by a shared cache.
        expect(res.headers["cache-control"]).toBe("public, max-age=3600");
      }
    });

    it(`the protected resource metadata and the 401's WWW-Authenticate, with ${what} poisoned`, async () => {
      const path = "/.well-known/oauth-protected-resource/mcp";
      const res = await sendRaw(what === "an absolute request target" ? `http://evil.example${path}` : path, headers);
      expect(res.status).toBe(200);
      expect(JSON.parse(res.text)).toMatchObject({ resource: `${BASE}/mcp`, authorization_servers: [BASE], resource_documentation: `${BASE}/developers#mcp` });
      expect(res.headers["cache-control"]).toBe("public, max-age=3600");
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_my_towns", arguments: {} } });
      const refused = await sendRaw(what === "an absolute request target" ? "http://evil.example/mcp?operator" : "/mcp?operator", {
        ...headers, "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25",
      }, "POST", body);
      expect(refused.status).toBe(401);
      expect(refused.headers["www-authenticate"]).toBe(`Bearer resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp", scope="town:read listings:decide notes:write sources:manage"`);
    });
  }

  it("sends the browser on to BASE_URL's pages from an authorization request with a poisoned Host", async () => {
    const doc = `${docs.url}/doc/poisoned-host`;
    const query = new URLSearchParams({
      response_type: "code", client_id: doc, redirect_uri: `${docs.url}/callback`, scope: "town:read",
      code_challenge: challenge(), code_challenge_method: "S256", resource: `${BASE}/mcp`,
    });
    const res = await sendRaw(`/oauth/authorize?${query}`, { Host: "evil.example", "X-Forwarded-Host": "evil.example" }, "GET", undefined, "127.0.0.9");
    expect(res.status).toBe(303);
    expect(res.headers.location).toMatch(/^\/operator\/connect\/[\w-]+$/);
    // The interaction's way back to the authorization server, set in its cookie's path and kept for the consent's answer.
    const uid = res.headers.location!.split("/").at(-1);
    const stored = server.ctx.db.prepare("SELECT payload FROM oauth_models WHERE model = 'Interaction' AND id = ?").pluck().get(uid) as string;
    expect(JSON.parse(stored).returnTo).toMatch(new RegExp(`^${BASE}/oauth/authorize/`));
  });
});

/** A request whose target may be absolute-form (`GET http://evil.example/... HTTP/1.1`), as a proxy forwards one. */
function sendRaw(target: string, headers: Record<string, string>, method = "GET", body?: string, from = "127.0.0.1"): Promise<Answer> {
  if (!/^https?:/.test(target)) return send(target, { method, headers, body, from });
  const { port } = new URL(server.url);
  return request({ host: "127.0.0.1", port, path: target }, { method, localAddress: from, headers: { Host: "evil.example", ...headers } }, body);
}

describe("client metadata documents are looked up within limits", () => {
  it("fetches at most ten documents an hour for one client address (authorization and revocation alike), then answers 429 slow_down", async () => {
    const answers: Answer[] = [];
    for (let i = 0; i < 40; i++) {
      const doc = `${docs.url}/doc/forty-${i}`;
      answers.push(i % 4 === 3 ? await revokeAs(doc, "127.0.0.2") : await badAuthorize(doc, "127.0.0.2"));
    }
    const fetched = [...docs.asked].filter(([path]) => path.startsWith("/doc/forty-")).reduce((n, [, count]) => n + count, 0);
    expect(fetched).toBe(10);
    // The first ten are oidc-provider's own answers (the client is known, its redirect_uri not).
    expect(answers.slice(0, 10).map((a) => a.status)).toEqual([400, 400, 400, 200, 400, 400, 400, 200, 400, 400]);
    expect(errorOf(answers[0])).toBe("invalid_redirect_uri");
    for (const refused of answers.slice(10)) {
      expect(refused.status).toBe(429);
      expect(errorOf(refused)).toBe("slow_down");
      expect(refused.text).toContain("too many client metadata document look-ups from this address; retry in");
      expect(Number(refused.headers["retry-after"])).toBeGreaterThan(300);
      expect(refused.headers["cache-control"]).toBe("no-store");
    }
    // The revocation endpoint, which OAuth clients call, answers in JSON.
    expect(JSON.parse(answers[11].text)).toMatchObject({ error: "slow_down" });
    // Another address is not held back.
    const elsewhere = await badAuthorize(`${docs.url}/doc/elsewhere`, "127.0.0.3");
    expect(elsewhere.status).toBe(400);
    expect(errorOf(elsewhere)).toBe("invalid_redirect_uri");
    // A document just fetched is asked again without a fetch, so without taking from the limit.
    const again = await badAuthorize(`${docs.url}/doc/forty-0`, "127.0.0.2");
    expect(errorOf(again)).toBe("invalid_redirect_uri");
    expect(docs.asked.get("/doc/forty-0")).toBe(1);
  });

  it("stops reading a document at 5 KB: a 2 MB one is cut long before its server has sent it", async () => {
    const res = await badAuthorize(`${docs.url}/big/one`, "127.0.0.4");
    expect(res.status).toBe(400);
    expect(errorOf(res)).toBe("invalid_client");
    await vi.waitFor(() => expect(docs.sent.has("/big/one")).toBe(true));
    await new Promise((resolve) => setTimeout(resolve, 200)); // the server's writes after the reader hung up fail
    expect(docs.asked.get("/big/one")).toBe(1);
    expect(docs.sent.get("/big/one")).toBeLessThan(256 * 1024);
  });

  it("refuses a document that redirects, without asking where it leads", async () => {
    const res = await badAuthorize(`${docs.url}/moved/target`, "127.0.0.10");
    expect(res.status).toBe(400);
    expect(errorOf(res)).toBe("invalid_client");
    expect(docs.asked.get("/moved/target")).toBe(1);
    expect(docs.asked.has("/doc/target")).toBe(false);
  });

  it("keeps a document that led to no grant a day at most, then forgets it", async () => {
    const rows = documentRows();
    expect(rows.length).toBeGreaterThanOrEqual(11);
    const now = Math.floor(Date.now() / 1000);
    for (const row of rows) {
      expect(row.expires_at).not.toBeNull();
      expect(row.expires_at!).toBeLessThanOrEqual(now + 86_400);
    }
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + 25 * 3600_000);
      // The next document stored sweeps the expired ones.
      expect(errorOf(await badAuthorize(`${docs.url}/doc/a-day-later`, "127.0.0.5"))).toBe("invalid_redirect_uri");
      expect(documentRows().map((r) => r.id)).toEqual([`document ${docs.url}/doc/a-day-later`]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("registration takes public clients only, returning over https or to this machine", () => {
  const register = (metadata: Record<string, unknown>, from = "127.0.0.6") => send("/oauth/register", {
    method: "POST", from, headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ client_name: "Registering client", grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], ...metadata }),
  });
  const clients = () => server.ctx.db.prepare("SELECT count(*) FROM oauth_models WHERE model = 'Client' AND id NOT LIKE 'document %'").pluck().get();

  it("refuses plain http to a host other than this machine", async () => {
    const before = clients();
    for (const uri of ["http://evil.example/cb", "http://127.0.0.1.evil.example/cb", "http://10.0.0.1/cb"]) {
      const res = await register({ redirect_uris: [uri], token_endpoint_auth_method: "none" });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text)).toMatchObject({ error: "invalid_redirect_uri", error_description: expect.stringContaining("plain http") });
    }
    expect(clients()).toBe(before);
  });

  it("refuses client_secret_basic and client_secret_post, and never issues a secret", async () => {
    const before = clients();
    for (const method of ["client_secret_basic", "client_secret_post", "client_secret_jwt"]) {
      const res = await register({ redirect_uris: ["https://client.example/cb"], token_endpoint_auth_method: method }, "127.0.0.7");
      expect(res.status).toBe(400);
      expect(res.text).not.toContain("client_secret\"");
      expect(JSON.parse(res.text).error).toBe("invalid_client_metadata");
    }
    expect(clients()).toBe(before);
    const meta = JSON.parse((await send("/.well-known/oauth-authorization-server")).text) as Record<string, unknown>;
    expect(meta.token_endpoint_auth_methods_supported).toEqual(["none"]);
  });

  it("registers https and loopback redirects as public clients, without a secret", async () => {
    for (const uris of [["https://client.example/cb"], ["http://127.0.0.1:8123/cb"], ["http://localhost:8123/cb"], ["http://[::1]:8123/cb"]]) {
      const res = await register({ redirect_uris: uris }, "127.0.0.8");
      expect(res.status).toBe(201);
      const made = JSON.parse(res.text) as Record<string, unknown>;
      expect(made).toMatchObject({ redirect_uris: uris, token_endpoint_auth_method: "none" });
      expect(made).not.toHaveProperty("client_secret");
    }
  });
});
