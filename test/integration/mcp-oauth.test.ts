import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Parser } from "htmlparser2";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { leaseTown } from "../helpers/commerce.ts";
import { OPERATOR_TOOLS } from "../../src/mcp/operator-tools.ts";
import { launchChromium } from "../helpers/browser.ts";
import { connectV1, connectV2 } from "../helpers/mcp-clients.ts";
import { csrfOf, getWith, Jar, postForm, useLink } from "../helpers/operator.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";
import { Client as SdkClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as SdkTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

// An operator signs an AI client in, as a client would do it against the real server: discovery
// from the 401, the metadata, a client ID metadata document served here on 127.0.0.1, the
// authorization request with PKCE, the desk's emailed sign-in link, consent, the code exchanged with
// `resource`, operator tools called through the SDK clients; then the same token refused where it
// must be (another town, a scope not given, another audience, revoked from the desk, lease ended).

const NOW = "2026-11-22T12:00:00.000Z";
const OPERATOR = "agent-operator@example.com";
const ALL = "town:read listings:decide notes:write sources:manage";
const MARKUP_NAME = "<img src=x onerror=alert(1)>";
const LONG_NAME = `Claude ${"and a very trustworthy assistant ".repeat(100)}`;
let sink: SmtpSink;
let server: TestServer;
let client: { url: string; close: () => Promise<void>; callbacks: URLSearchParams[] };
/** The SDK's dynamically registered client, once the operator allowed it. */
let registered: SdkProvider | undefined;

/** The AI client's side on 127.0.0.1: its metadata document and its redirect address. */
async function startClientSite(): Promise<typeof client> {
  const callbacks: URLSearchParams[] = [];
  let base = "";
  const site = http.createServer((req, res) => {
    const url = new URL(req.url!, base);
    if (url.pathname === "/client.json") {
      res.writeHead(200, { "Content-Type": "application/json" });
      return res.end(JSON.stringify({ client_id: `${base}/client.json`, client_name: "Test Assistant", redirect_uris: [`${base}/callback`], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" }));
    }
    // Clients whose client_name is markup, or very long (the consent page shows each as text, cut short).
    const named: Record<string, string> = { "/markup.json": MARKUP_NAME, "/long.json": LONG_NAME };
    if (named[url.pathname]) {
      res.writeHead(200, { "Content-Type": "application/json" });
      return res.end(JSON.stringify({ client_id: `${base}${url.pathname}`, client_name: named[url.pathname], redirect_uris: [`${base}/callback`] }));
    }
    if (url.pathname === "/impostor.json") {
      res.writeHead(200, { "Content-Type": "application/json" });
      return res.end(JSON.stringify({ client_id: `${base}/client.json`, client_name: "Impostor", redirect_uris: [`${base}/callback`] }));
    }
    if (url.pathname === "/callback") {
      callbacks.push(url.searchParams);
      res.writeHead(200, { "Content-Type": "text/plain" });
      return res.end("You can close this window.");
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  return { url: base, callbacks, close: () => new Promise<void>((resolve) => site.close(() => resolve())) };
}

const pkce = () => {
  const verifier = crypto.randomBytes(32).toString("base64url");
  return { verifier, challenge: crypto.createHash("sha256").update(verifier).digest("base64url") };
};

const rpc = (method: string, params: object, id = 1) => JSON.stringify({ jsonrpc: "2.0", id, method, params });
const mcpPost = (s: TestServer, body: string, headers: Record<string, string> = {}, path = "/mcp") => fetch(`${s.url}${path}`, {
  method: "POST", body,
  headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25", ...headers },
});

/** Follows a browser's redirects with its cookie jar until an answer that is not a redirect, or one leaving `origin`. */
async function browse(jar: Jar, url: string, origin: string): Promise<Response> {
  let res = await getWith(jar, url);
  while (res.status >= 300 && res.status < 400) {
    const next = new URL(res.headers.get("location")!, url).href;
    if (!next.startsWith(origin)) return res;
    url = next;
    res = await getWith(jar, url);
  }
  return res;
}

interface Authorized { code: string; iss: string | null; verifier: string; consentHtml?: string; consentCsp?: string | null }

/**
 * What the person does in their browser from the authorization URL a client opened: signs in with
 * the emailed link if the browser is not signed in yet, then Allow (or Deny) when asked. Returns the
 * redirect back to the client and the consent page, when there was one.
 */
async function inBrowser(s: TestServer, jar: Jar, start: string, decision: "allow" | "deny" = "allow"): Promise<{ to: URL; consentHtml?: string; consentCsp?: string | null }> {
  let page = await browse(jar, start, s.url);
  let consent: { consentHtml?: string; consentCsp?: string | null } = {};
  if (page.status === 200) {
    let html = await page.text();
    if (html.includes("Email me a sign-in link")) {
      const action = /action="(\/operator\/connect\/[\w-]+\/email)"/.exec(html)![1];
      const sent = await postForm(jar, `${s.url}${action}`, { csrf: csrfOf(html), email: OPERATOR });
      expect(await sent.text()).toContain("a sign-in link is on its way");
      await sendPendingMail(s.ctx);
      const mail = sink.messages.filter((m) => m.to.includes(OPERATOR) && m.parsed.subject === "Your citydaily sign-in link").at(-1)!;
      const link = /(https?:\/\/\S+\/operator\/sign-in\/[\w-]+)/.exec(mail.parsed.text ?? "")![1];
      const signedIn = await useLink(jar, link);
      expect(signedIn.status).toBe(303);
      const back = signedIn.headers.get("location")!;
      expect(back).toMatch(/^\/operator\/connect\/[\w-]+$/);
      page = await getWith(jar, `${s.url}${back}`);
      html = await page.text();
    }
    expect(html).toContain("Allow");
    consent = { consentHtml: html, consentCsp: page.headers.get("content-security-policy") };
    const action = /<form method="post" action="(\/operator\/connect\/[\w-]+)">/.exec(html)![1];
    const answered = await postForm(jar, `${s.url}${action}`, { csrf: csrfOf(html), decision });
    expect(answered.status).toBe(303);
    page = await browse(jar, new URL(answered.headers.get("location")!, s.url).href, s.url);
  }
  if (page.status !== 303) throw new Error(`${page.status} ${page.url}: ${(await page.text()).slice(0, 3000)}`);
  return { to: new URL(page.headers.get("location")!), ...consent };
}

/** The authorization request as a client sends the person's browser to it (PKCE, resource), and the browser's steps. */
async function authorize(s: TestServer, jar: Jar, scope: string, decision: "allow" | "deny" = "allow"): Promise<Authorized> {
  const { verifier, challenge } = pkce();
  const state = crypto.randomUUID();
  const meta = await (await fetch(`${s.url}/.well-known/oauth-authorization-server`)).json() as { authorization_endpoint: string };
  const query = new URLSearchParams({ response_type: "code", client_id: `${client.url}/client.json`, redirect_uri: `${client.url}/callback`, scope, state, code_challenge: challenge, code_challenge_method: "S256", resource: `${s.url}/mcp` });
  const { to, consentHtml, consentCsp } = await inBrowser(s, jar, `${meta.authorization_endpoint}?${query}`, decision);
  expect(to.origin + to.pathname).toBe(`${client.url}/callback`);
  expect(to.searchParams.get("state")).toBe(state);
  return { code: to.searchParams.get("code") ?? `error:${to.searchParams.get("error")}`, iss: to.searchParams.get("iss"), verifier, consentHtml, consentCsp };
}

async function token(s: TestServer, body: Record<string, string>): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${s.url}/oauth/token`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ client_id: `${client.url}/client.json`, ...body }) });
  return { status: res.status, json: await res.json() as Record<string, unknown> };
}

const exchange = (s: TestServer, a: Authorized, resource = `${s.url}/mcp`) =>
  token(s, { grant_type: "authorization_code", code: a.code, redirect_uri: `${client.url}/callback`, code_verifier: a.verifier, resource });

const withToken = (accessToken: string): typeof fetch => (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set("Authorization", `Bearer ${accessToken}`);
  return fetch(input, { ...init, headers });
};

/** The SDK's client side of OAuth, kept in memory; the authorization URL it opens is handed to the test's browser. */
class SdkProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  opened?: URL;
  readonly redirectUrl: string;
  constructor(redirectUrl: string) {
    this.redirectUrl = redirectUrl;
  }
  get clientMetadata() {
    return { client_name: "SDK test client", redirect_uris: [this.redirectUrl], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }
  clientInformation() { return this.info; }
  saveClientInformation(info: OAuthClientInformationMixed) { this.info = info; }
  tokens() { return this.saved; }
  saveTokens(tokens: OAuthTokens) { this.saved = tokens; }
  redirectToAuthorization(url: URL) { this.opened = url; }
  saveCodeVerifier(verifier: string) { this.verifier = verifier; }
  codeVerifier() { return this.verifier; }
}

const at = (iso: string) => { server.ctx.config.now = () => new Date(iso); };

beforeAll(async () => {
  sink = await new SmtpSink().start();
  client = await startClientSite();
  server = await startTestServer({ SMTP_URL: sink.url, MAIL_SENDER: "off", NOW, FEEDS_ALLOW_ADDRESSES: "127.0.0.1" });
  await leaseTown(server, OPERATOR);
  await sendPendingMail(server.ctx);
});
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
  await client?.close();
});

describe("an operator signs an AI client in, and runs their town from it", () => {
  let access = "";
  let refresh = "";
  // One person's browser: signed in by the first request's emailed link, then kept (the sign-in links are rate-limited per address).
  const browser = new Jar();

  it("discovers the authorization server from the 401 of an operator tool, and its metadata", async () => {
    // Public tools stay open; an operator tool without a token is a 401 naming the resource metadata.
    expect((await mcpPost(server, rpc("tools/call", { name: "get_place", arguments: { slug: "boise-idaho" } }))).status).toBe(200);
    const refused = await mcpPost(server, rpc("tools/call", { name: "list_pending_listings", arguments: { slug: "boise-idaho" } }));
    expect(refused.status).toBe(401);
    const challenge = refused.headers.get("www-authenticate")!;
    expect(challenge).toBe(`Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp", scope="listings:decide"`);
    // `/mcp?operator` asks for the token at once (clients sign in when they connect).
    expect((await mcpPost(server, rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }), {}, "/mcp?operator")).status).toBe(401);

    const resource = await (await fetch(/resource_metadata="([^"]+)"/.exec(challenge)![1])).json();
    expect(resource).toMatchObject({ resource: `${server.url}/mcp`, authorization_servers: [server.url], scopes_supported: ALL.split(" "), bearer_methods_supported: ["header"] });
    const meta = await (await fetch(`${resource.authorization_servers[0]}/.well-known/oauth-authorization-server`)).json();
    expect(meta).toMatchObject({
      issuer: server.url,
      authorization_endpoint: `${server.url}/oauth/authorize`, token_endpoint: `${server.url}/oauth/token`,
      registration_endpoint: `${server.url}/oauth/register`, revocation_endpoint: `${server.url}/oauth/revoke`,
      code_challenge_methods_supported: ["S256"], response_types_supported: ["code"],
      authorization_response_iss_parameter_supported: true,
    });
    expect(meta.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]));
    expect(meta.token_endpoint_auth_methods_supported).toContain("none");
  });

  it("refuses a client whose metadata document names another client, and one on a private address not allowed", async () => {
    const ask = (clientId: string) => fetch(`${server.url}/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: `${client.url}/callback`, scope: ALL, code_challenge: pkce().challenge, code_challenge_method: "S256", resource: `${server.url}/mcp` })}`, { redirect: "manual" });
    for (const id of [`${client.url}/impostor.json`, `http://127.0.0.2:${new URL(client.url).port}/client.json`]) {
      const res = await ask(id);
      expect(res.status).toBe(400);
      expect(await res.text()).toContain("invalid_client");
    }
  });

  it("signs in by the desk's emailed link, shows the consent page, and exchanges the code with `resource`", async () => {
    const jar = browser;
    const a = await authorize(server, jar, ALL);
    // The consent page names the client, where the browser goes back, the town and the scopes.
    expect(a.consentHtml).toContain('<strong data-testid="client-name">Test Assistant</strong>');
    expect(a.consentHtml).toContain(`<strong data-testid="redirect-host">${new URL(client.url).host}</strong>`);
    expect(a.consentHtml).toContain("<li>Boise, Idaho</li>");
    expect(a.consentHtml).toContain("see the listings waiting for your review, and approve or reject them");
    expect(a.consentCsp).toContain(`form-action 'self' ${client.url}`);
    expect(a.iss).toBe(server.url);

    // PKCE is checked: the wrong verifier gets nothing, and a code works once.
    expect((await token(server, { grant_type: "authorization_code", code: a.code, redirect_uri: `${client.url}/callback`, code_verifier: pkce().verifier, resource: `${server.url}/mcp` })).json.error).toBe("invalid_grant");
    const b = await authorize(server, jar, ALL);
    expect(b.consentHtml).toBeUndefined(); // allowed before: no second question
    const got = await exchange(server, b);
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: ALL });
    access = String(got.json.access_token);
    refresh = String(got.json.refresh_token);
    expect(refresh.length).toBeGreaterThan(20);
  });

  it("shows a client_name holding markup as text, and a very long one cut short", async () => {
    const consentFor = async (doc: string) => {
      const query = new URLSearchParams({ response_type: "code", client_id: `${client.url}${doc}`, redirect_uri: `${client.url}/callback`, scope: "town:read", state: "named", code_challenge: pkce().challenge, code_challenge_method: "S256", resource: `${server.url}/mcp` });
      const page = await browse(browser, `${server.url}/oauth/authorize?${query}`, server.url);
      expect(page.status).toBe(200);
      return page.text();
    };
    // As a browser parses the page: the name is text (in the heading, the title and the page), never an element.
    const markup = await consentFor("/markup.json");
    const elements: Array<{ name: string; attributes: Record<string, string> }> = [];
    const texts: string[] = [];
    new Parser({ onopentag: (name, attributes) => elements.push({ name, attributes }), ontext: (t) => texts.push(t) }, { decodeEntities: true }).end(markup);
    expect(elements.filter((el) => el.name === "img" || Object.keys(el.attributes).some((a) => a.startsWith("on")))).toEqual([]);
    expect(markup).toContain('<strong data-testid="client-name">&lt;img src=x onerror=alert(1)&gt;</strong>');
    expect(texts.join("")).toContain(`Allow ${MARKUP_NAME} to act for you?`);

    const long = await consentFor("/long.json");
    const shown = /<strong data-testid="client-name">([^<]*)<\/strong>/.exec(long)![1];
    expect(shown).toBe("Claude and a very trustworthy assistant and a very trustwor…");
    expect([...shown].length).toBeLessThanOrEqual(60);
    expect(/<title>([^<]*)<\/title>/.exec(long)![1]).toContain(`Allow ${shown}`);
    // What matters next to it stays in the page: where the browser returns, and the buttons.
    expect(long).toContain(`<strong data-testid="redirect-host">${new URL(client.url).host}</strong>`);
    expect(long).toContain('value="allow">Allow</button>');
    expect(long).not.toContain("trustworthy assistant and a very trustworthy assistant and a very");
  });

  it("calls the operator tools with the token through both SDK clients", async () => {
    for (const connect of [connectV1, connectV2]) {
      const c = await connect(`${server.url}/mcp`, withToken(access));
      try {
        const names = (await c.client.listTools()).tools.map((t) => t.name);
        expect(names).toEqual(expect.arrayContaining(["get_city", "list_my_towns", "list_pending_listings", "decide_listing", "get_notes", "write_note", "get_town_audience", "get_town_statement", "list_sources", "pause_source", "restore_source"]));
        const towns = await c.client.callTool({ name: "list_my_towns", arguments: {} });
        expect(towns.structuredContent).toMatchObject({ towns: [{ slug: "boise-idaho", town: "Boise, Idaho" }] });
        const audience = await c.client.callTool({ name: "get_town_audience", arguments: { slug: "boise-idaho" } });
        expect(audience.isError).toBeFalsy();
        expect(audience.structuredContent).toHaveProperty("subscribers");
        const note = { slug: "boise-idaho", markdown: "The library book sale runs all weekend.", authorName: "Ada", idempotencyKey: `note-${c.revision}` };
        const written = await c.client.callTool({ name: "write_note", arguments: note });
        expect(written.isError).toBeFalsy();
        expect(written.structuredContent).toMatchObject({ slug: "boise-idaho", authorName: "Ada" });
        const again = await c.client.callTool({ name: "write_note", arguments: note });
        expect(again._meta?.["citydaily/idempotentReplayed"]).toBe(true);
        const notes = await c.client.callTool({ name: "get_notes", arguments: { slug: "boise-idaho" } });
        expect(JSON.stringify(notes.structuredContent)).toContain("The library book sale runs all weekend.");
      } finally {
        await c.close();
      }
    }
    // What the operator's tools add to tools/list (docs/mcp.md): bytes of their JSON.
    const listed = await (await mcpPost(server, rpc("tools/list", {}), { Authorization: `Bearer ${access}` })).json() as { result: { tools: Array<{ name: string }> } };
    const operatorTools = listed.result.tools.filter((t) => OPERATOR_TOOLS.some((o) => o.name === t.name));
    expect(operatorTools).toHaveLength(10);
    console.log(`operator tools in tools/list: ${operatorTools.length} tools, ${JSON.stringify(operatorTools).length} bytes`);
    // Without the token the public list is as before: no operator tool in it.
    const anonymous = await connectV1(`${server.url}/mcp`);
    expect((await anonymous.client.listTools()).tools.map((t) => t.name)).not.toContain("list_my_towns");
    await anonymous.close();
  });

  it("refuses another town, a scope not given, and rotates the refresh token", async () => {
    const c = await connectV1(`${server.url}/mcp`, withToken(access));
    const other = await c.client.callTool({ name: "get_town_audience", arguments: { slug: "denver-colorado" } });
    expect(other.isError).toBe(true);
    expect(JSON.parse((other.content as Array<{ text: string }>)[0].text)).toMatchObject({ code: "forbidden", detail: expect.stringContaining("denver-colorado is not one of your towns") });
    await c.close();

    const jar = browser;
    const narrow = await authorize(server, jar, "town:read");
    const got = await exchange(server, narrow);
    expect(got.json.scope).toBe("town:read");
    const denied = await mcpPost(server, rpc("tools/call", { name: "decide_listing", arguments: { slug: "boise-idaho", orderId: `lo_${crypto.randomUUID()}`, decision: "approve" } }), { Authorization: `Bearer ${String(got.json.access_token)}` });
    expect(denied.status).toBe(403);
    expect(denied.headers.get("www-authenticate")).toMatch(/^Bearer error="insufficient_scope", error_description="[^"]+", resource_metadata="[^"]+", scope="town:read listings:decide"$/);

    const rotated = await token(server, { grant_type: "refresh_token", refresh_token: refresh });
    expect(rotated.status).toBe(200);
    expect(rotated.json).toMatchObject({ expires_in: 3600, scope: ALL });
    expect(rotated.json.refresh_token).not.toBe(refresh);
    const call = (bearer: unknown) => mcpPost(server, rpc("tools/call", { name: "list_my_towns", arguments: {} }), { Authorization: `Bearer ${String(bearer)}` });
    expect((await call(rotated.json.access_token)).status).toBe(200);
    // The old refresh token used again is taken for a stolen one: refused, and its whole grant revoked.
    expect((await token(server, { grant_type: "refresh_token", refresh_token: refresh })).json.error).toBe("invalid_grant");
    expect((await call(rotated.json.access_token)).status).toBe(401);
    expect((await token(server, { grant_type: "refresh_token", refresh_token: String(rotated.json.refresh_token) })).json.error).toBe("invalid_grant");
  });

  it("refuses a token issued for another resource", async () => {
    // A second site on the same database (its own origin): a token meant for its /mcp is not one for ours.
    const other = await startTestServer({ DATA_DIR: server.dataDir, SMTP_URL: sink.url, MAIL_SENDER: "off", NOW, FEEDS_ALLOW_ADDRESSES: "127.0.0.1" });
    try {
      expect((await exchange(server, await authorize(server, browser, ALL), `${other.url}/mcp`)).json.error).toBe("invalid_target");
      const theirs = await exchange(other, await authorize(other, browser, ALL));
      expect(theirs.status).toBe(200);
      const res = await mcpPost(server, rpc("tools/call", { name: "list_my_towns", arguments: {} }), { Authorization: `Bearer ${String(theirs.json.access_token)}` });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toContain(`error="invalid_token", error_description="The access token is not for ${server.url}/mcp."`);
    } finally {
      await other.close();
    }
  });

  it("lists the client on the desk and revokes it there; the token and its refresh token stop at once", async () => {
    const jar = browser;
    const got = await exchange(server, await authorize(server, jar, ALL));
    access = String(got.json.access_token);
    refresh = String(got.json.refresh_token);
    expect((await mcpPost(server, rpc("tools/call", { name: "list_my_towns", arguments: {} }), { Authorization: `Bearer ${access}` })).status).toBe(200);
    const page = await getWith(jar, `${server.url}/operator/clients`);
    const html = await page.text();
    expect(html).toContain("<strong>Test Assistant</strong>");
    const forms = [...html.matchAll(/action="(\/operator\/clients\/[\w-]+\/revoke)"/g)].map((m) => m[1]);
    expect(forms.length).toBeGreaterThan(0);
    for (const action of forms) expect((await postForm(jar, `${server.url}${action}`, { csrf: csrfOf(html) })).status).toBe(303);
    expect(await (await getWith(jar, `${server.url}/operator/clients`)).text()).toContain("No AI client holds access to your towns.");
    const res = await mcpPost(server, rpc("tools/call", { name: "list_my_towns", arguments: {} }), { Authorization: `Bearer ${access}` });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect((await token(server, { grant_type: "refresh_token", refresh_token: refresh })).json.error).toBe("invalid_grant");
  });

  it("completes with the SDK client's own OAuth provider (dynamic registration, PKCE, resource)", async () => {
    // The v1 SDK's transport with an OAuthClientProvider, as Claude Code and the Inspector use it:
    // it meets the 401 of /mcp?operator, discovers, registers itself, and opens the authorization URL.
    const provider = new SdkProvider(`${client.url}/callback`);
    registered = provider;
    const url = new URL(`${server.url}/mcp?operator`);
    const first = new SdkClient({ name: "sdk-oauth-test", version: "1.0.0" });
    await expect(first.connect(new SdkTransport(url, { authProvider: provider }))).rejects.toThrow(UnauthorizedError);
    expect(provider.info?.client_id).toMatch(/^[0-9a-f-]{36}$/); // registered dynamically
    const opened = provider.opened!;
    expect(opened.searchParams.get("code_challenge_method")).toBe("S256");
    expect(opened.searchParams.get("resource")).toBe(`${server.url}/mcp`);
    const { to, consentHtml } = await inBrowser(server, browser, opened.href);
    expect(consentHtml).toContain('<strong data-testid="client-name">SDK test client</strong>');
    const transport = new SdkTransport(url, { authProvider: provider });
    await transport.finishAuth(to.searchParams.get("code")!);
    expect(provider.saved).toMatchObject({ token_type: "Bearer", expires_in: 3600 });
    const sdk = new SdkClient({ name: "sdk-oauth-test", version: "1.0.0" });
    await sdk.connect(new SdkTransport(url, { authProvider: provider }));
    const towns = await sdk.callTool({ name: "list_my_towns", arguments: {} });
    await sdk.close();
    expect(towns.structuredContent).toMatchObject({ towns: [{ slug: "boise-idaho" }] });
    console.log(`SDK OAuth provider: registered ${provider.info?.client_id}; scope "${provider.saved?.scope}"; list_my_towns -> ${JSON.stringify(towns.structuredContent)}`);
  });

  it("in Chromium: signs in from the request, and Allow leads back to the client (the consent page's form-action allows it)", async () => {
    const chromium = await launchChromium();
    const context = await chromium.newContext();
    const page = await context.newPage();
    const blocked: string[] = [];
    page.on("console", (m) => { if (/Content Security Policy/i.test(m.text())) blocked.push(m.text()); });
    try {
      const { challenge } = pkce();
      const query = new URLSearchParams({ response_type: "code", client_id: `${client.url}/client.json`, redirect_uri: `${client.url}/callback`, scope: "town:read", state: "in-chromium", code_challenge: challenge, code_challenge_method: "S256", resource: `${server.url}/mcp` });
      await page.goto(`${server.url}/oauth/authorize?${query}`);
      await page.getByLabel("Email address you leased your town with").fill(OPERATOR);
      await page.getByRole("button", { name: "Email me a sign-in link" }).click();
      await page.getByText("a sign-in link is on its way").waitFor();
      await sendPendingMail(server.ctx);
      const mail = sink.messages.filter((m) => m.to.includes(OPERATOR) && m.parsed.subject === "Your citydaily sign-in link").at(-1)!;
      await page.goto(/(https?:\/\/\S+\/operator\/sign-in\/[\w-]+)/.exec(mail.parsed.text ?? "")![1]);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByText("Test Assistant").first().waitFor();
      expect(await page.getByTestId("scopes").innerText()).toContain("read your town's audience, clicks and statement");
      // With SCREENSHOT_DIR set, the consent page is photographed there (for looking at, not asserted).
      if (process.env.SCREENSHOT_DIR) await page.screenshot({ path: `${process.env.SCREENSHOT_DIR}/oauth-consent-1280.png`, fullPage: true });
      const before = client.callbacks.length;
      await page.getByRole("button", { name: "Allow" }).click();
      await page.waitForURL(`${client.url}/callback**`, { timeout: 5000 }); // blocked by form-action otherwise
      expect(client.callbacks.length).toBe(before + 1);
      expect(client.callbacks.at(-1)!.get("state")).toBe("in-chromium");
      expect(client.callbacks.at(-1)!.get("code")).toBeTruthy();
      expect(blocked).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("denies when the operator presses Deny, and refuses every tool once the lease has ended", async () => {
    const jar = browser;
    const denied = await authorize(server, jar, ALL, "deny");
    expect(denied.code).toBe("error:access_denied");
    const fresh = await exchange(server, await authorize(server, jar, ALL));
    const bearer = { Authorization: `Bearer ${String(fresh.json.access_token)}` };
    expect((await mcpPost(server, rpc("tools/call", { name: "list_sources", arguments: { slug: "boise-idaho" } }), bearer)).status).toBe(200);
    // The operator cancels on the desk; the lease runs to the end of its paid period, then ends.
    const desk = await (await getWith(jar, `${server.url}/operator/towns/boise-idaho`)).text();
    expect((await postForm(jar, `${server.url}/operator/towns/boise-idaho/lease/cancel`, { csrf: csrfOf(desk) })).status).toBe(303);
    try {
      at("2027-01-31T12:00:00.000Z");
      const c = await connectV1(`${server.url}/mcp`, withToken(String(fresh.json.access_token)));
      const ended = await c.client.callTool({ name: "list_sources", arguments: { slug: "boise-idaho" } });
      await c.close();
      expect(ended.isError).toBe(true);
      expect((ended.content as Array<{ text: string }>)[0].text).toContain("Your lease of Boise, Idaho has ended");
    } finally {
      at(NOW);
    }
  });
});

describe("dynamically registered clients are not kept forever", () => {
  // The authorization server's storage runs on oidc-provider's clock (Date.now, not config.now): the
  // test moves that clock, faking only Date, so the server's timers and sockets go on as they are.
  const later = (hours: number) => vi.setSystemTime(Date.now() + hours * 3600_000);
  const stored = (id: string) => server.ctx.db.prepare("SELECT count(*) FROM oauth_models WHERE model = 'Client' AND id = ?").pluck().get(id);
  const register = async (name: string) => {
    const res = await fetch(`${server.url}/oauth/register`, {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ client_name: name, redirect_uris: [`${client.url}/callback`], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" }),
    });
    expect(res.status).toBe(201);
    return String(((await res.json()) as { client_id: string }).client_id);
  };
  /** A refresh with a token that never existed: invalid_grant from a known client, invalid_client from a forgotten one. */
  const knock = async (clientId: string) => (await token(server, { client_id: clientId, grant_type: "refresh_token", refresh_token: "never-issued" })).json.error;

  it("forgets a registration (or a metadata document) never used after a day, keeps the one the operator allowed, and forgets it 30 days after its grant is revoked", async () => {
    const sdk = registered!;
    const sdkId = String(sdk.info!.client_id);
    const unused = await register("Registered and never used");
    expect(await knock(unused)).toBe("invalid_grant");
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      later(23);
      expect(await knock(unused)).toBe("invalid_grant"); // still there within the day
      later(2);
      expect(await knock(unused)).toBe("invalid_client");
      await register("The next registration prunes"); // expired rows go with each registration
      expect(stored(unused)).toBe(0);
      // Metadata documents alike: those that never led to a grant are gone, the allowed client's is kept.
      const documents = server.ctx.db.prepare("SELECT id FROM oauth_models WHERE model = 'Client' AND id LIKE 'document %' ORDER BY id").pluck().all();
      expect(documents).toEqual([`document ${client.url}/client.json`]);

      // The allowed client carries on: its refresh token gets a new access token a day later.
      expect(stored(sdkId)).toBe(1);
      const refreshed = await token(server, { client_id: sdkId, grant_type: "refresh_token", refresh_token: String(sdk.saved!.refresh_token), resource: `${server.url}/mcp` });
      expect(refreshed.status).toBe(200);
      expect(refreshed.json).toMatchObject({ token_type: "Bearer", expires_in: 3600 });
      const towns = await mcpPost(server, rpc("tools/call", { name: "list_my_towns", arguments: {} }), { Authorization: `Bearer ${String(refreshed.json.access_token)}` });
      expect(towns.status).toBe(200);

      // The client gives its refresh token back (RFC 7009), which ends its grant: kept 30 days more, then forgotten.
      const revoked = await fetch(`${server.url}/oauth/revoke`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ client_id: sdkId, token: String(refreshed.json.refresh_token) }) });
      expect(revoked.status).toBe(200);
      expect(server.ctx.db.prepare("SELECT count(*) FROM oauth_models WHERE model = 'Grant' AND json_extract(payload, '$.clientId') = ?").pluck().get(sdkId)).toBe(0);
      later(29 * 24);
      expect(await knock(sdkId)).toBe("invalid_grant");
      later(2 * 24);
      expect(await knock(sdkId)).toBe("invalid_client");
      await register("Another registration prunes");
      expect(stored(sdkId)).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
