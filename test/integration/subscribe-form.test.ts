import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";

// POST /subscribe: the subscribe form without JavaScript, as a browser sends it
// (application/x-www-form-urlencoded), answered with HTML pages, never problem+json.
const NOW = "2026-11-22T12:00:00.000Z";

let sink: SmtpSink;
let server: TestServer;
let limited: TestServer;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  server = await startTestServer({ SMTP_URL: sink.url, MAIL_SENDER: "off", NOW, SUBSCRIBE_RATE_LIMIT: "1000" });
  limited = await startTestServer({ MAIL_SENDER: "off", NOW, SUBSCRIBE_RATE_LIMIT: "2", SUBSCRIBE_RATE_WINDOW_SECONDS: "600" });
});
afterAll(async () => {
  await server?.stop();
  await limited?.stop();
  await sink?.stop();
});

const postForm = (s: TestServer, fields: Record<string, string>) =>
  fetch(`${s.url}/subscribe`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString(), redirect: "manual" });
const subscriptionsOf = (email: string) =>
  server.ctx.db.prepare("SELECT p.slug, s.landing_path FROM subscribers s JOIN places p ON p.geoid = s.place_geoid WHERE s.email = ?").all(email) as Array<{ slug: string; landing_path: string | null }>;

async function htmlOf(res: Response): Promise<string> {
  expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
  const html = await res.text();
  expect(html).toMatch(/^<!DOCTYPE html>/);
  // The site's look: its masthead and a way back.
  expect(html).toContain('<a class="brand" href="/">city<span>daily</span></a>');
  return html;
}

const ST_LOUIS = { slug: "st-louis-missouri", city: "St. Louis", state: "Missouri", landing_path: "/st-louis-missouri" };

describe("POST /subscribe (the form without JavaScript)", () => {
  it("subscribes through the same operation and thanks the reader, naming the town with a link back", async () => {
    const res = await postForm(server, { email: "form.reader@example.com", ...ST_LOUIS, honeypot: "" });
    expect(res.status).toBe(200);
    const html = await htmlOf(res);
    expect(html).toContain("<title>Thanks: the St. Louis, Missouri newsletter is on its way · citydaily</title>");
    expect(html).toContain("form.reader@example.com will get the St. Louis, Missouri newsletter every morning, or once a week if the address chose that before.");
    expect(html).toContain('<a href="/st-louis-missouri">Back to St. Louis, Missouri</a>');
    expect(subscriptionsOf("form.reader@example.com")).toEqual([{ slug: "st-louis-missouri", landing_path: "/st-louis-missouri" }]);
    // The welcome email is queued and delivered as for the JSON route.
    await sendPendingMail(server.ctx);
    await sink.waitForCount(1);
    expect(sink.to("form.reader@example.com")[0].parsed.subject).toBe("Welcome to the St. Louis, Missouri daily");
  });

  it("takes the town from the picker's slug alone (the home page's select sends no city or state)", async () => {
    const res = await postForm(server, { email: "picker@example.com", slug: "boise-idaho", landing_path: "/" });
    expect(res.status).toBe(200);
    expect(await htmlOf(res)).toContain("picker@example.com will get the Boise, Idaho newsletter every morning, or once a week if the address chose that before.");
    expect(subscriptionsOf("picker@example.com").map((s) => s.slug)).toEqual(["boise-idaho"]);
  });

  it("shows the form again with the error next to the email field, keeping what was typed", async () => {
    const res = await postForm(server, { email: "not an <email>", ...ST_LOUIS });
    expect(res.status).toBe(400);
    const html = await htmlOf(res);
    expect(html).not.toContain('"code"');
    // Astro escapes an attribute's `&` and `"` (all a quoted value needs): the typed `<` and `>` stay as they are.
    expect(html).toContain('<input id="email" type="email" name="email" autocomplete="email" required value="not an <email>" aria-invalid="true" aria-describedby="email-error">');
    expect(html).toMatch(/<p class="field-error" id="email-error">Email address: must be an email address such as name@example.com<\/p>/);
    expect(html).toContain("Town: <strong>St. Louis, Missouri</strong>");
    // The hidden town fields come back, so a second post needs only the fixed address.
    expect(html).toContain('<input type="hidden" name="slug" value="st-louis-missouri">');
    expect(html).toContain('<a href="/st-louis-missouri">Back to the page you came from</a>');
    expect(subscriptionsOf("not an <email>")).toEqual([]);
  });

  it("names a town that does not exist or does not match, from the service's issues", async () => {
    const unknown = await htmlOf(await postForm(server, { email: "a@example.com", slug: "atlantis-idaho", city: "Atlantis", state: "Idaho" }));
    expect(unknown).toContain('<p class="field-error" id="town-error">Town: no U.S. place has this slug');
    const mismatch = await postForm(server, { email: "a@example.com", slug: "boise-idaho", city: "Boise", state: "Oregon" });
    expect(mismatch.status).toBe(400);
    expect(await htmlOf(mismatch)).toContain('Town: must be &quot;Idaho&quot;, the state of boise-idaho');
    const none = await postForm(server, { email: "a@example.com", slug: "" });
    expect(none.status).toBe(400);
    expect(await htmlOf(none)).toMatch(/id="town-error">Town: /);
    expect(subscriptionsOf("a@example.com")).toEqual([]);
  });

  it("answers a filled honeypot exactly like a success, and stores nothing", async () => {
    const res = await postForm(server, { email: "bot@example.com", ...ST_LOUIS, honeypot: "http://spam.example" });
    expect(res.status).toBe(200);
    expect(await htmlOf(res)).toContain("Thanks: the St. Louis, Missouri newsletter is on its way");
    expect(subscriptionsOf("bot@example.com")).toEqual([]);
  });

  it("never links back to another site from the posted landing path", async () => {
    const html = await htmlOf(await postForm(server, { email: "bad", ...ST_LOUIS, landing_path: "//evil.example/x" }));
    expect(html).not.toContain('<a href="//evil.example/x">');
    expect(html).not.toContain("Back to the page you came from");
  });

  it("an oversized post is a form to fill again, not a JSON problem", async () => {
    const res = await postForm(server, { email: "big@example.com", ...ST_LOUIS, landing_path: "/".repeat(17 * 1024) });
    expect(res.status).toBe(400);
    expect(await htmlOf(res)).toContain('id="email-error"');
  });

  it("rate-limits with the JSON route's limiter and says so in a friendly page with Retry-After", async () => {
    for (const email of ["one@example.com", "two@example.com"]) expect((await postForm(limited, { email, ...ST_LOUIS })).status).toBe(200);
    const res = await postForm(limited, { email: "three@example.com", ...ST_LOUIS });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    const html = await htmlOf(res);
    expect(html).toContain("Too many sign-ups at once");
    expect(html).toContain(`try again in ${res.headers.get("retry-after")} seconds`);
    // The same allowance as POST /api/subscribe: the JSON route is limited now too.
    const json = await limited.post("/api/subscribe", { email: "four@example.com", ...ST_LOUIS });
    expect(json.status).toBe(429);
  });
});
