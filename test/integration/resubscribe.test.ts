import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { subscriberToken } from "../../src/services/readers/unsubscribe.ts";
import { connectV2 } from "../helpers/mcp-clients.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";

// What a reader found wrong: one who unsubscribed and subscribes again was told "Check your inbox" and
// got nothing. Now the subscription is active again and the welcome arrives, over real SMTP, whether
// they come back through the API, the form without JavaScript, MCP or the manage page's button.

const NOW = "2026-11-22T12:00:00.000Z";
let sink: SmtpSink;
let server: TestServer;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  server = await startTestServer({ SMTP_URL: sink.url, MAIL_SENDER: "off", NOW, SUBSCRIBE_RATE_LIMIT: "1000", POSTAL_ADDRESS: "citydaily, 100 Main St, Springfield, IL 62701" });
});
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
});

const BOISE = { city: "Boise", state: "Idaho", slug: "boise-idaho" };
const statusOf = (email: string) => server.ctx.db.prepare("SELECT status FROM subscribers WHERE email = ? AND place_geoid = (SELECT geoid FROM places WHERE slug = 'boise-idaho')").pluck().get(email);
const idOf = (email: string) => server.ctx.db.prepare("SELECT id FROM subscribers WHERE email = ? ORDER BY id LIMIT 1").pluck().get(email) as number;
async function welcomesTo(email: string): Promise<number> {
  await sendPendingMail(server.ctx);
  return sink.to(email).filter((m) => m.parsed.subject === "Welcome to the Boise, Idaho daily").length;
}
async function subscribeApi(email: string) {
  const res = await server.post("/api/subscribe", { email, ...BOISE });
  expect(res.status).toBe(200);
}
/** Leaves Boise with the email's own unsubscribe link (one city, or every city). */
async function unsubscribe(email: string, scope: "city" | "all" = "city") {
  const token = subscriberToken(server.ctx, idOf(email), email);
  const res = await fetch(`${server.url}/unsubscribe/${token}`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: scope === "all" ? "scope=all" : "" });
  expect(res.status).toBe(200);
  expect(statusOf(email)).toBe("unsubscribed");
}

describe("subscribing again after unsubscribing", () => {
  it("through the API: active again and welcomed again; a third request changes nothing", async () => {
    const email = "again-api@example.org";
    await subscribeApi(email);
    expect(await welcomesTo(email)).toBe(1);
    await unsubscribe(email);
    await subscribeApi(email);
    expect(statusOf(email)).toBe("active");
    expect(await welcomesTo(email)).toBe(2);
    await subscribeApi(email); // already active: no third welcome
    expect(await welcomesTo(email)).toBe(2);
  });

  it("through the form without JavaScript", async () => {
    const email = "again-form@example.org";
    await subscribeApi(email);
    expect(await welcomesTo(email)).toBe(1);
    await unsubscribe(email);
    const res = await fetch(`${server.url}/subscribe`, {
      method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email, ...BOISE, landing_path: "/boise-idaho" }).toString(),
    });
    expect(res.status).toBe(200);
    expect(statusOf(email)).toBe("active");
    expect(await welcomesTo(email)).toBe(2);
  });

  it("through MCP (subscribe_city)", async () => {
    const email = "again-mcp@example.org";
    await subscribeApi(email);
    expect(await welcomesTo(email)).toBe(1);
    await unsubscribe(email);
    const c = await connectV2(`${server.url}/mcp`);
    try {
      const r = (await c.client.callTool({ name: "subscribe_city", arguments: { email, ...BOISE } })) as { isError?: boolean };
      expect(r.isError).toBeFalsy();
    } finally {
      await c.close();
    }
    expect(statusOf(email)).toBe("active");
    expect(await welcomesTo(email)).toBe(2);
  });

  it("after 'unsubscribe from every city': asking again changes nothing until the address confirms (security-readers.test.ts)", async () => {
    const email = "again-all@example.org";
    await subscribeApi(email);
    expect(await welcomesTo(email)).toBe(1);
    await unsubscribe(email, "all");
    await subscribeApi(email);
    expect(statusOf(email)).toBe("unsubscribed");
    expect(server.ctx.db.prepare("SELECT COUNT(*) FROM suppressions WHERE email = ?").pluck().get(email)).toBe(1);
    expect(await welcomesTo(email)).toBe(1);
    expect(sink.to(email).map((m) => m.parsed.subject)).toContain("Confirm: subscribe to the Boise, Idaho daily again?");
  });

  it("after 'unsubscribe from every city', the manage page's button (its token proves the address) subscribes again at once", async () => {
    const email = "again-all-manage@example.org";
    await subscribeApi(email);
    expect(await welcomesTo(email)).toBe(1);
    await unsubscribe(email, "all");
    const token = subscriberToken(server.ctx, idOf(email), email);
    const res = await fetch(`${server.url}/subscriptions/${token}`, {
      method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: `resubscribe=${idOf(email)}`,
    });
    expect(await res.text()).toContain("Subscribed again: a welcome email is on its way.");
    expect(statusOf(email)).toBe("active");
    expect(server.ctx.db.prepare("SELECT COUNT(*) FROM suppressions WHERE email = ?").pluck().get(email)).toBe(0);
    expect(await welcomesTo(email)).toBe(2);
  });

  it("a complaining address stays refused, silently: no welcome", async () => {
    const email = "bounced@example.org";
    await subscribeApi(email);
    const now = server.ctx.config.now().toISOString();
    server.ctx.db.prepare("INSERT INTO suppressions (email, reason, source, detail, created_at) VALUES (?, 'complained', 'test', NULL, ?)").run(email, now);
    server.ctx.db.prepare("UPDATE subscribers SET status = 'complained' WHERE email = ?").run(email);
    const before = await welcomesTo(email);
    await subscribeApi(email);
    expect(statusOf(email)).toBe("complained");
    expect(await welcomesTo(email)).toBe(before);
  });

  it("the manage page has a Subscribe again button for a city left, which welcomes again", async () => {
    const email = "again-manage@example.org";
    await subscribeApi(email);
    expect(await welcomesTo(email)).toBe(1);
    await unsubscribe(email);
    const token = subscriberToken(server.ctx, idOf(email), email);
    const page = await (await fetch(`${server.url}/subscriptions/${token}`)).text();
    expect(page).toContain('aria-label="Subscribe again to Boise, Idaho"');
    const res = await fetch(`${server.url}/subscriptions/${token}`, {
      method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: `resubscribe=${idOf(email)}`,
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("Subscribed again: a welcome email is on its way.");
    expect(statusOf(email)).toBe("active");
    expect(await welcomesTo(email)).toBe(2);
    // Another address's subscription cannot be reactivated with this token.
    await subscribeApi("someone-else@example.org");
    await unsubscribe("someone-else@example.org");
    const other = await fetch(`${server.url}/subscriptions/${token}`, {
      method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: `resubscribe=${idOf("someone-else@example.org")}`,
    });
    expect(await other.text()).toContain("Nothing changed.");
    expect(statusOf("someone-else@example.org")).toBe("unsubscribed");
  });
});
