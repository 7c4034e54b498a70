import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { subscriberToken } from "../../src/services/readers/unsubscribe.ts";
import { addEdition } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";

// A reader who left (unsubscribed from every city, or whose address bounced or complained) is never
// subscribed again on someone else's word. The request answers as for any address and changes
// nothing; the address gets one email a day at most asking to confirm, whose page has one button
// that brings the subscription back, with a welcome (and today's edition) as for a new reader.

const NOW = "2026-11-22T12:00:00.000Z";
const ADMIN = { Authorization: "Bearer admin-secret" };
const BOISE = { city: "Boise", state: "Idaho", slug: "boise-idaho" };
const CONFIRM_SUBJECT = "Confirm: subscribe to the Boise, Idaho daily again?";
const WELCOME_SUBJECT = "Welcome to the Boise, Idaho daily";
let sink: SmtpSink;
let server: TestServer;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  server = await startTestServer({ SMTP_URL: sink.url, MAIL_SENDER: "off", NOW, SUBSCRIBE_RATE_LIMIT: "1000", ADMIN_TOKEN: "admin-secret", POSTAL_ADDRESS: "citydaily, 100 Main St, Springfield, IL 62701" });
});
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
});

const db = () => server.ctx.db;
const statusOf = (email: string) => db().prepare("SELECT status FROM subscribers WHERE email = ? AND place_geoid = (SELECT geoid FROM places WHERE slug = 'boise-idaho')").pluck().get(email);
const suppressionOf = (email: string) => db().prepare("SELECT reason FROM suppressions WHERE email = ?").pluck().get(email);
const idOf = (email: string) => db().prepare("SELECT id FROM subscribers WHERE email = ? ORDER BY id LIMIT 1").pluck().get(email) as number;
async function mailTo(email: string, subject: string) {
  await sendPendingMail(server.ctx);
  return sink.to(email).filter((m) => m.parsed.subject === subject);
}
/** What a stranger sends: the address, and words of their own in every free field. */
const subscribeAsStranger = async (email: string) => {
  const res = await server.post("/api/subscribe", { email, ...BOISE, utm_campaign: "Your account is suspended", landing_path: "/phish.example.net/login", referrer: "https://phish.example.net/login" });
  return { status: res.status, body: await res.json() };
};

const LEAVE: Record<string, (email: string) => Promise<void>> = {
  "unsubscribed from every city": async (email) => {
    const token = subscriberToken(server.ctx, idOf(email), email);
    const res = await fetch(`${server.url}/unsubscribe/${token}`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "scope=all" });
    expect(res.status).toBe(200);
  },
  bounced: async (email) => {
    expect((await server.post("/webhooks/mail", { type: "bounce", email, permanent: true, detail: "550 5.1.1 no such user" }, { headers: ADMIN })).status).toBe(200);
  },
  complained: async (email) => {
    expect((await server.post("/webhooks/mail", { type: "complaint", email }, { headers: ADMIN })).status).toBe(200);
  },
};

describe("subscribing an address that left", () => {
  for (const [how, leave] of Object.entries(LEAVE)) {
    it(`${how}: no welcome and one confirmation email after two requests; its page's button brings the subscription back`, async () => {
      const email = `left-${how.split(" ")[0]}@example.org`;
      await server.post("/api/subscribe", { email, ...BOISE });
      expect(await mailTo(email, WELCOME_SUBJECT)).toHaveLength(1);
      await leave(email);
      const left = statusOf(email);
      const reason = suppressionOf(email);
      expect(left).not.toBe("active");
      expect(reason).toBeTruthy();

      // Two requests the same day: the answer of any address, nothing changed, one email.
      const fresh = await subscribeAsStranger(`fresh-${how.split(" ")[0]}@example.org`);
      expect(await subscribeAsStranger(email)).toEqual(fresh);
      expect(await subscribeAsStranger(email)).toEqual(fresh);
      expect(fresh).toEqual({ status: 200, body: { success: true, message: expect.any(String) } });
      expect(statusOf(email)).toBe(left);
      expect(suppressionOf(email)).toBe(reason);
      expect(await mailTo(email, WELCOME_SUBJECT)).toHaveLength(1);
      const confirmations = await mailTo(email, CONFIRM_SUBJECT);
      expect(confirmations).toHaveLength(1);
      const mail = confirmations[0].parsed;
      // Only the service's words: none of the stranger's.
      for (const part of [mail.text ?? "", String(mail.html)]) {
        expect(part).not.toMatch(/suspended|phish/);
        expect(part).toContain("Boise, Idaho");
      }
      expect(confirmations[0].header("List-Unsubscribe")).toBeUndefined();
      const link = /(http:\/\/\S+\/resubscribe\/[\w-]+)/.exec(mail.text ?? "")![1];

      // Opening the link changes nothing (link scanners open links); the page has one button.
      const page = await fetch(link);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html.match(/<button\b/g)).toHaveLength(1);
      expect(html).toMatch(/<form method="post"><button type="submit">Subscribe to Boise again<\/button><\/form>/);
      expect(statusOf(email)).toBe(left);
      expect(suppressionOf(email)).toBe(reason);

      const pressed = await fetch(link, { method: "POST" });
      expect(pressed.status).toBe(200);
      expect(await pressed.text()).toContain("is subscribed again: a welcome email is on its way.");
      expect(statusOf(email)).toBe("active");
      expect(suppressionOf(email)).toBeUndefined();
      const welcomes = await mailTo(email, WELCOME_SUBJECT);
      expect(welcomes).toHaveLength(2);
      expect(welcomes[1].parsed.text).toContain("Your first edition arrives with Boise's next morning edition");
      // The link works once.
      expect((await fetch(link, { method: "POST" })).status).toBe(410);
      expect((await fetch(link)).status).toBe(410);
    });
  }

  it("the next day brings another confirmation; confirming on a day with an edition sends it as to a new reader", async () => {
    const email = "next-day@example.org";
    await server.post("/api/subscribe", { email, ...BOISE });
    await LEAVE.complained(email);
    await subscribeAsStranger(email);
    expect(await mailTo(email, CONFIRM_SUBJECT)).toHaveLength(1);
    const at = (iso: string) => { server.ctx.config.now = () => new Date(iso); };
    try {
      at("2026-11-23T11:00:00.000Z"); // 23 hours later: still the same day's allowance
      await subscribeAsStranger(email);
      expect(await mailTo(email, CONFIRM_SUBJECT)).toHaveLength(1);
      at("2026-11-23T13:00:00.000Z");
      addEdition(db(), "boise-idaho", "2026-11-23", "Boise: first snow");
      await subscribeAsStranger(email);
      const confirmations = await mailTo(email, CONFIRM_SUBJECT);
      expect(confirmations).toHaveLength(2);
      const link = /(http:\/\/\S+\/resubscribe\/[\w-]+)/.exec(confirmations[1].parsed.text ?? "")![1];
      expect((await fetch(link, { method: "POST" })).status).toBe(200);
      const welcome = await mailTo(email, WELCOME_SUBJECT);
      expect(welcome.at(-1)!.parsed.text).toContain("Today's edition is on its way");
      expect(sink.to(email).map((m) => m.parsed.subject)).toContain("Boise: first snow");
    } finally {
      at(NOW);
    }
  });

  it("staff's suppression stays, silently: no confirmation", async () => {
    const email = "stopped-by-staff@example.org";
    db().prepare("INSERT INTO suppressions (email, reason, source, detail, created_at) VALUES (?, 'manual', 'admin', NULL, ?)").run(email, NOW);
    expect((await subscribeAsStranger(email)).status).toBe(200);
    await sendPendingMail(server.ctx);
    expect(sink.to(email)).toHaveLength(0);
    expect(statusOf(email)).toBeUndefined();
  });
});
