import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operationsById } from "../../src/contract/operations/index.ts";
import { currentGeneration, siteDirs } from "../../src/publish/site-dir.ts";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { runOperationOnce } from "../../src/services/operations/run-once.ts";
import { buildSite } from "../../src/services/site/publish.ts";
import { EVENT, payOnHostedPage, problemOf } from "../helpers/commerce.ts";
import { csrfOf, mailedLink } from "../helpers/operator.ts";
import { addEdition, addSubscriber } from "../helpers/seed.ts";
import { freshDataDir, startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";

// What a security tester found open on the platform, each tried again against the real server: a
// deployment (https BASE_URL) without a payment provider, the operator's sign-in from another
// network, the page CSP and HSTS, SendGrid's replay check, /mcp's origins, and idempotency keys of
// signed-in callers. docs/security.md has the table.

const HTTPS = "https://citydaily.example";
const APP_ORIGIN = "https://app.example";
const NOW = "2026-11-22T12:00:00.000Z";
const OPERATOR = "lockout-operator@example.com";
const sendgrid = crypto.generateKeyPairSync("ec", { namedCurve: "prime256v1" });

let sink: SmtpSink;
let dev: TestServer; // http BASE_URL: development, the local checkout
let deployed: TestServer; // https BASE_URL, no STRIPE_SECRET_KEY
let optedIn: TestServer; // https BASE_URL, LOCAL_CHECKOUT=on

beforeAll(async () => {
  sink = await new SmtpSink().start();
  [dev, deployed, optedIn] = await Promise.all([
    startTestServer({
      SMTP_URL: sink.url, MAIL_SENDER: "off", NOW, SUBSCRIBE_RATE_LIMIT: "1000",
      SENDGRID_WEBHOOK_PUBLIC_KEY: sendgrid.publicKey.export({ type: "spki", format: "der" }).toString("base64"),
    }),
    startTestServer({ BASE_URL: HTTPS, MAIL_SENDER: "off", NOW, SUBSCRIBE_RATE_LIMIT: "1000", MCP_ALLOWED_ORIGINS: APP_ORIGIN }),
    startTestServer({ BASE_URL: HTTPS, LOCAL_CHECKOUT: "on", MAIL_SENDER: "off", NOW, SUBSCRIBE_RATE_LIMIT: "1000" }),
  ]);
  for (const s of [dev, deployed, optedIn]) addSubscriber(s.ctx.db, "boise-idaho", "reader@example.org");
}, 60_000);
afterAll(async () => {
  await Promise.all([dev?.stop(), deployed?.stop(), optedIn?.stop()]);
  await sink?.stop();
});

describe("payments do not fail open", () => {
  it("https without STRIPE_SECRET_KEY: every purchase answers 503 problem+json naming what is missing, and holds nothing", async () => {
    const listing = await deployed.post("/api/listing-checkout", EVENT);
    expect(listing.status).toBe(503);
    expect(listing.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    const problem = await problemOf(listing);
    expect(problem.code).toBe("service_misconfigured");
    expect(problem.detail).toMatch(/Purchases are off: STRIPE_SECRET_KEY is not set and BASE_URL is https/);
    expect(problem.detail).toMatch(/LOCAL_CHECKOUT=on/);
    // The town lease too; the reservation is released, so the town is not held by a purchase that cannot be paid.
    const lease = await deployed.post("/api/operator-actions", { action: "guest-checkout", city: "Boise", state: "Idaho", email: "op@example.com" });
    expect(lease.status).toBe(503);
    expect((await problemOf(lease)).code).toBe("service_misconfigured");
    expect(deployed.ctx.db.prepare("SELECT COUNT(*) FROM leases WHERE status IN ('reserved', 'active')").pluck().get()).toBe(0);
    // The local checkout's pages and callback are not there to be used either.
    expect(deployed.ctx.payments.hosted).toBeUndefined();
    expect((await fetch(`${deployed.url}/webhooks/payments`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" })).status).toBe(503);
  });

  it("people buying on the site's pages are told in words, not problem+json", async () => {
    const res = await fetch(`${deployed.url}/lease/caldwell-idaho`, {
      method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "email=op%40example.com",
    });
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await res.text()).toContain("This site takes no payments at the moment. Nothing was charged");
  });

  it("LOCAL_CHECKOUT=on opts an https deployment into the local checkout; http (development) uses it anyway", async () => {
    for (const server of [optedIn, dev]) {
      const res = await server.post("/api/listing-checkout", EVENT);
      expect(res.status).toBe(200);
      const body = await res.json() as { checkoutUrl: string };
      expect(body.checkoutUrl).toMatch(/\/checkout\/cs_local_/);
      expect(server.ctx.payments.name).toBe("local");
    }
  });

  it("the start-up log says in one line that purchases are off and why", async () => {
    const lines = await startUpLog({ BASE_URL: HTTPS });
    const off = lines.filter((l) => /purchases are off/.test(String(l.msg)));
    expect(off).toHaveLength(1);
    expect(off[0]).toMatchObject({ level: 40, msg: expect.stringMatching(/^purchases are off: STRIPE_SECRET_KEY is not set and BASE_URL is https; .*LOCAL_CHECKOUT=on/) });
    const opted = await startUpLog({ BASE_URL: HTTPS, LOCAL_CHECKOUT: "on" });
    expect(opted.some((l) => /purchases are off/.test(String(l.msg)))).toBe(false);
  }, 60_000);
});

/** Starts `node api/server.ts` as `npm start` does, until it listens; returns its JSON log lines. */
async function startUpLog(env: Record<string, string>): Promise<Array<Record<string, unknown>>> {
  const dataDir = freshDataDir();
  const child = spawn(process.execPath, ["api/server.ts"], {
    cwd: path.resolve(import.meta.dirname, "../.."),
    env: {
      PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: "info", HOST: "127.0.0.1", PORT: "0", DATA_DIR: dataDir,
      MORNING_SCHEDULE: "off", MAIL_SENDER: "off", TOWN_DIRECTORY_IMPORT: "manual", DIRECTORY_CHECKS_PER_HOUR: "0", ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the server did not start: ${out}`)), 45_000);
      child.stdout.on("data", (chunk) => {
        out += String(chunk);
        // What start-up says follows "listening" at once; leave it a moment to arrive.
        if (/citydaily listening/.test(out)) {
          clearTimeout(timer);
          setTimeout(resolve, 500);
        }
      });
      child.once("exit", (code) => reject(new Error(`the server exited (${code}): ${out}`)));
    });
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("close", r));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return out.trim().split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
}

describe("operator sign-in is counted per address and client", () => {
  it("six requests for the operator's address from one client do not lock the operator out on another network (127.0.0.2)", async () => {
    const lease = await (await dev.post("/api/operator-actions", { action: "guest-checkout", city: "Nampa", state: "Idaho", email: OPERATOR })).json() as { checkoutUrl: string };
    await payOnHostedPage(lease.checkoutUrl, "a month");
    let last: { status: number; body: string } | undefined;
    for (let i = 0; i < 6; i++) last = await askForLinkFrom(dev, "127.0.0.1", OPERATOR);
    expect(last!.status).toBe(429);
    expect(last!.body).toMatch(/Too many sign-in links asked for this address/);
    // The real operator, elsewhere: the link is sent.
    await sendPendingMail(dev.ctx);
    const before = sink.to(OPERATOR).filter((m) => m.parsed.subject === "Your citydaily sign-in link").length;
    const elsewhere = await askForLinkFrom(dev, "127.0.0.2", OPERATOR);
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body).toContain("a sign-in link is on its way");
    expect(await mailedLink(dev, sink, OPERATOR)).toMatch(/\/operator\/sign-in\//);
    expect(sink.to(OPERATOR).filter((m) => m.parsed.subject === "Your citydaily sign-in link").length).toBe(before + 1);
  });
});

/** One HTTP request from a chosen local address (the client socket bound to it). */
function requestFrom(localAddress: string, url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? "GET", headers: init.headers, localAddress, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (c) => (body += c)).on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.once("error", reject);
    req.end(init.body);
  });
}

/** The sign-in form as a person uses it (its CSRF cookie and token), from `localAddress`. */
async function askForLinkFrom(server: TestServer, localAddress: string, email: string): Promise<{ status: number; body: string }> {
  const page = await requestFrom(localAddress, `${server.url}/operator`);
  const cookie = (page.headers["set-cookie"] ?? []).map((c) => c.split(";")[0]).join("; ");
  return requestFrom(localAddress, `${server.url}/operator/sign-in`, {
    method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie },
    body: new URLSearchParams({ csrf: csrfOf(page.body), email }).toString(),
  });
}

describe("the page CSP trusts only the scripts the templates ship", () => {
  const hashOf = (script: string) => `'sha256-${crypto.createHash("sha256").update(script).digest("base64")}'`;
  const inlineScripts = (html: string) => [...html.matchAll(/<script\b(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]);

  it("a page carrying an injected inline script is served without that script's hash; the subscribe form's is there", async () => {
    addEdition(dev.ctx.db, "boise-idaho", "2026-11-20", "Boise: light rain after noon");
    await buildSite(dev.ctx);
    const town = await dev.get("/boise-idaho");
    const html = await town.text();
    const [form] = inlineScripts(html);
    expect(form).toMatch(/data-subscribe/);
    const csp = town.headers.get("content-security-policy")!;
    expect(csp).toContain(hashOf(form));
    // A page of the site with a script no template wrote (as HTML injection would put there).
    const injected = "window.injected = document.cookie";
    const live = currentGeneration(siteDirs(dev.dataDir))!;
    fs.writeFileSync(path.join(live, "injected.html"), html.replace("</main>", `<script>${injected}</script></main>`));
    const res = await dev.get("/injected");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(`<script>${injected}</script>`);
    const policy = res.headers.get("content-security-policy")!;
    expect(policy).not.toContain(hashOf(injected));
    expect(policy).toContain(hashOf(form));
    // Only the templates' own scripts are trusted (the subscribe form's, the manage page's): hashes, never 'unsafe-inline'.
    expect(policy).toMatch(/script-src 'self'( 'sha256-[\w+/=]+')+(; |$)/);
  }, 120_000);

  it("sends HSTS with an https BASE_URL, on pages, API answers and errors alike; not over http", async () => {
    for (const p of ["/", "/api/cities", "/api/nothing", "/operator"]) {
      expect((await deployed.get(p)).headers.get("strict-transport-security"), p).toBe("max-age=31536000; includeSubDomains");
      expect((await dev.get(p)).headers.get("strict-transport-security"), p).toBeNull();
    }
  });
});

describe("SendGrid's replay check keys on the decoded signature", () => {
  const P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
  /** The same ECDSA signature with s replaced by n - s, which verifies alike (DER re-encoded). */
  function otherS(der: Buffer): Buffer {
    const rLen = der[3], r = der.subarray(4, 4 + rLen);
    const s = BigInt(`0x${der.subarray(6 + rLen).toString("hex")}`);
    let hex = (P256_N - s).toString(16);
    if (hex.length % 2) hex = `0${hex}`;
    let sBytes = Buffer.from(hex, "hex");
    if (sBytes[0] & 0x80) sBytes = Buffer.concat([Buffer.from([0]), sBytes]);
    const body = Buffer.concat([Buffer.from([0x02, r.length]), r, Buffer.from([0x02, sBytes.length]), sBytes]);
    return Buffer.concat([Buffer.from([0x30, body.length]), body]);
  }

  it("the header re-spelled (a trailing !, a leading ., no padding) or the signature's other s is a replay (401)", async () => {
    const body = JSON.stringify([{ email: "sg-replayed@example.org", event: "spamreport", sg_event_id: "sg-replay-1", timestamp: 1 }]);
    const timestamp = String(Math.floor(dev.ctx.config.now().getTime() / 1000));
    const der = crypto.sign("sha256", Buffer.from(timestamp + body), sendgrid.privateKey);
    const post = (signature: string) => fetch(`${dev.url}/webhooks/mail/sendgrid`, {
      method: "POST", body,
      headers: { "Content-Type": "application/json", "X-Twilio-Email-Event-Webhook-Signature": signature, "X-Twilio-Email-Event-Webhook-Timestamp": timestamp },
    });
    const signature = der.toString("base64");
    expect((await post(signature)).status).toBe(200);
    const variants = [`${signature}!`, `.${signature}`, signature.replace(/=+$/, ""), otherS(der).toString("base64")];
    for (const v of variants) {
      expect(crypto.verify("sha256", Buffer.from(timestamp + body), sendgrid.publicKey, Buffer.from(v, "base64")), v).toBe(true);
      const res = await post(v);
      expect(res.status, v).toBe(401);
      expect((await res.json() as { detail: string }).detail, v).toMatch(/replay/);
    }
  });
});

describe("/mcp origins with an https BASE_URL", () => {
  const rpc = (headers: Record<string, string>) => fetch(`${deployed.url}/mcp`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });

  it("serves its own origin, MCP_ALLOWED_ORIGINS and requests without Origin; refuses any other (localhost included) with 403", async () => {
    for (const origin of ["https://evil.example", "http://localhost:5173", "http://127.0.0.1:8080", "http://citydaily.example", "https://citydaily.example:8443", "null"]) {
      const res = await rpc({ Origin: origin });
      expect(res.status, origin).toBe(403);
      expect((await res.json() as { error: { code: number } }).error.code, origin).toBeLessThan(0);
    }
    for (const headers of [{ Origin: HTTPS }, { Origin: APP_ORIGIN }, {}] as Array<Record<string, string>>) {
      const res = await rpc(headers);
      expect(res.status, JSON.stringify(headers)).toBe(200);
      await res.body?.cancel();
    }
  });

  it("over http (development) a local tool on any localhost port is still served", async () => {
    const res = await fetch(`${dev.url}/mcp`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25", Origin: "http://localhost:5173" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });
});

describe("idempotency keys of signed-in callers", () => {
  it("are scoped per caller: the same key from two operators runs twice, from one operator once", async () => {
    const op = operationsById.createListingCheckout;
    const caller = { transport: "mcp" as const, address: "127.0.0.1", admin: false };
    const key = "same-key-from-two-desks";
    const first = await runOperationOnce(dev.ctx, op, { ...EVENT, title: "Fair one" }, caller, key, { scope: "operator:a@example.com" });
    const other = await runOperationOnce(dev.ctx, op, { ...EVENT, title: "Fair two" }, caller, key, { scope: "operator:b@example.com" });
    expect(other.replayed).toBe(false);
    expect((other.reply.data as { orderId: string }).orderId).not.toBe((first.reply.data as { orderId: string }).orderId);
    const again = await runOperationOnce(dev.ctx, op, { ...EVENT, title: "Fair one" }, caller, key, { scope: "operator:a@example.com" });
    expect(again.replayed).toBe(true);
    expect(again.reply.data).toEqual(first.reply.data);
    // Unscoped (anonymous) callers keep the operation's own scope, apart from both.
    const anonymous = await runOperationOnce(dev.ctx, op, { ...EVENT, title: "Fair three" }, caller, key);
    expect(anonymous.replayed).toBe(false);
  });
});
