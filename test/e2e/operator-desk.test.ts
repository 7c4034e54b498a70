import fs from "node:fs";
import path from "node:path";
import { HtmlValidate } from "html-validate";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { launchChromium } from "../helpers/browser.ts";
import { EVENT } from "../helpers/commerce.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";
import { RSS_TYPE, rssFeed, startTownSourcesServer, type TownSourcesServer } from "../helpers/town-sources-server.ts";

// An operator in a real browser (Debian chromium), knowing nothing of the API: pays the town's lease
// on the hosted checkout, signs in with the emailed one-time link (a second use fails), writes
// tomorrow's note, adds a feed (an RSS file served by the test), approves a free listing, sees the
// subscriber count and the statement; the next morning's email carries the note. Every desk page at
// 390 and 1280 px: no horizontal scroll, html-validate and axe (all impacts) clean; screenshots go
// to SCREENSHOT_DIR when it is set.

const AXE = path.resolve(import.meta.dirname, "../../node_modules/axe-core/axe.min.js");
const SHOTS = process.env.SCREENSHOT_DIR;
// 12:00 UTC is 05:00 in Boise (Mountain time): today's edition, at 06:00, is the next one.
const NOW = "2026-11-22T12:00:00.000Z";
// 5:00 in Boise: the desk is written for a morning before the edition is out (published from 6 here).
const BEFORE_PUBLICATION = { NOW, PUBLISH_HOUR: "6" };
const OPERATOR = "dana@boise-desk.example.com";
let server: TestServer;
let sink: SmtpSink;
let src: TownSourcesServer;
let browser: Browser;
let subscribers = 0;
const validator = new HtmlValidate({
  extends: ["html-validate:recommended"],
  rules: {
    // The chart's SVG presentation attributes read as styling (as in test/e2e/markup.test.ts).
    "no-inline-style": "off",
    // api/http/html-page.ts writes a lowercase doctype, which other tests expect; the shared layout of the
    // buy branch (Base.astro, through the on-request pages) replaces that shell.
    "doctype-style": "off",
  },
});

beforeAll(async () => {
  sink = await new SmtpSink().start();
  src = await startTownSourcesServer();
  server = await startTestServer({
    SMTP_URL: sink.url, MAIL_SENDER: "off", ...BEFORE_PUBLICATION, SUBSCRIBE_RATE_LIMIT: "1000", FEEDS_ALLOW_PRIVATE: "true",
    NWS_API_URL: src.url, AIR_QUALITY_API_URL: src.url,
  });
  addSubscriber(server.ctx.db, "boise-idaho", "reader@example.org");
  // A month of readers joining (and two leaving), so the chart has something to draw.
  const insert = server.ctx.db.prepare("INSERT INTO subscribers (email, place_geoid, status, created_at, updated_at) VALUES (?, (SELECT geoid FROM places WHERE slug = 'boise-idaho'), ?, ?, ?)");
  for (let d = 1; d <= 21; d++) {
    for (let k = 0; k < (d * 7) % 4; k++) {
      const at = `2026-11-${String(d).padStart(2, "0")}T18:00:00.000Z`;
      const left = (d === 9 || d === 17) && k === 0;
      insert.run(`r${d}-${k}@example.org`, left ? "unsubscribed" : "active", at, left ? `2026-11-${String(d + 1).padStart(2, "0")}T18:00:00.000Z` : at);
    }
  }
  subscribers = server.ctx.db.prepare("SELECT COUNT(*) FROM subscribers WHERE status = 'active'").pluck().get() as number;
  src.setFeed("/boise-gazette.rss", { body: rssFeed("Boise Gazette", [
    { title: "Capitol Boulevard bridge reopens", link: "https://gazette.example.org/bridge", published: "2026-11-22T08:00:00Z" },
  ]), contentType: RSS_TYPE });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await sink?.stop();
  await src?.close();
});

async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated over the devtools protocol: the page's CSP (rightly) refuses an injected inline script.
  await page.evaluate(fs.readFileSync(AXE, "utf8"));
  const result = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }).axe;
    return axe.run(document, { resultTypes: ["violations"] });
  });
  return result.violations.map((v) => `${v.impact} ${v.id} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/** The page as it is now, checked at 390 and 1280 px: markup, axe, no sideways scroll; a screenshot of each. */
const lastDocument = new WeakMap<Page, import("playwright-core").Response>();
function track(page: Page): Page {
  page.on("response", (r) => { if (r.request().resourceType() === "document" && r.frame() === page.mainFrame() && r.status() < 300) lastDocument.set(page, r); });
  page.on("response", (r) => { if (r.request().resourceType() === "document" && r.frame() === page.mainFrame() && r.status() >= 400) lastDocument.set(page, r); });
  return page;
}

async function checkPage(page: Page, name: string): Promise<void> {
  // The markup as the server sent it (the browser's serialization would rewrite boolean attributes).
  const html = await lastDocument.get(page)!.text();
  const report = await validator.validateString(html, `${name}.html`);
  expect(report.results.flatMap((r) => r.messages.map((m) => `${m.ruleId}: ${m.message}`)), `${name}: html-validate`).toEqual([]);
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    expect(await axeViolations(page), `${name} at ${width}px: axe`).toEqual([]);
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(scrollWidth, `${name} at ${width}px is ${scrollWidth}px wide`).toBeLessThanOrEqual(width);
    if (SHOTS) {
      fs.mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, `operator-${name}-${width}.png`), fullPage: true });
      // Screen-sized parts too, to look at in an image viewer without shrinking.
      const height = await page.evaluate(() => document.documentElement.scrollHeight);
      for (let y = 0, i = 0; y < height; y += 900, i++) {
        await page.screenshot({ path: path.join(SHOTS, `operator-${name}-${width}-part${i}.png`), clip: { x: 0, y, width, height: Math.min(900, height - y) }, fullPage: true });
      }
    }
  }
}

async function mailedSignInLink(): Promise<string> {
  await sendPendingMail(server.ctx);
  const mail = sink.messages.filter((m) => m.to.includes(OPERATOR) && m.parsed.subject === "Your citydaily sign-in link").at(-1);
  expect(mail).toBeDefined();
  return /(http:\/\/\S+\/operator\/sign-in\/[\w-]+)/.exec(mail!.parsed.text ?? "")![1];
}

describe("the operator desk in a browser", () => {
  it("from leasing the town to the next morning's email", async () => {
    // A buyer's free listing waits for the town's operator.
    const free = await (await server.post("/api/listing-checkout", { ...EVENT, tier: "free", title: "Foothills lantern walk", url: "https://lantern-walk.example.org/" })).json();
    expect(free.queued).toBeDefined();

    // Leasing, from the town's page: its lease page, then the hosted checkout.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = track(await context.newPage());
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${server.url}/boise-idaho`);
    await Promise.all([page.waitForURL(/\/lease\/boise-idaho$/), page.getByRole("link", { name: /^(lease Boise|Run this newsletter)$/ }).click()]);
    await page.getByLabel("Your email").fill(OPERATOR);
    await Promise.all([page.waitForURL(/\/checkout\//), page.getByRole("button", { name: /^Continue to payment/ }).click()]);
    await Promise.all([page.waitForURL(/\/purchase\/done\?lease=/), page.getByRole("button", { name: /^Pay \$10\.00 a month$/ }).click()]);
    await expect(page.getByText("You run this town now").isVisible()).resolves.toBe(true);

    // Sign-in: the email form.
    await Promise.all([page.waitForURL(/\/operator$/), page.getByRole("link", { name: "Open your operator desk" }).click()]);
    await checkPage(page, "sign-in");
    await page.getByLabel("Email address you leased your town with").fill("not an address");
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await expect(page.locator("#email-error").textContent()).resolves.toBe("Enter the email address you leased your town with.");
    await expect(page.getByLabel("Email address you leased your town with").inputValue()).resolves.toBe("not an address");
    await checkPage(page, "sign-in-error");
    await page.getByLabel("Email address you leased your town with").fill(OPERATOR);
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await expect(page.locator("h1").textContent()).resolves.toBe("Check your email");
    await checkPage(page, "check-email");

    const link = await mailedSignInLink();
    // The operator's emails fit a phone: no long URL as link text (the activation email was 742 px wide).
    for (const subject of ["You now operate the Boise, Idaho daily", "Your citydaily sign-in link"]) {
      const mail = sink.messages.find((m) => m.to.includes(OPERATOR) && m.parsed.subject === subject);
      expect(mail, subject).toBeDefined();
      const phone = await browser.newPage({ viewport: { width: 390, height: 800 } });
      await phone.setContent(String(mail!.parsed.html));
      const width = await phone.evaluate(() => document.documentElement.scrollWidth);
      expect(width, `${subject}: ${width}px wide at 390`).toBeLessThanOrEqual(390);
      if (SHOTS) await phone.screenshot({ path: path.join(SHOTS, `operator-email-${subject.replace(/\W+/g, "-")}-390.png`), fullPage: true });
      await phone.close();
    }
    await page.goto(link);
    await checkPage(page, "sign-in-link");
    await Promise.all([page.waitForURL(/\/operator$/), page.getByRole("button", { name: "Sign in" }).click()]);
    await expect(page.locator("h1").textContent()).resolves.toBe("Operator desk");
    await expect(page.getByRole("heading", { name: "Your towns" }).isVisible()).resolves.toBe(true);
    await checkPage(page, "towns");

    // The link works once: a second use, even in another browser, fails.
    const other = track(await browser.newPage());
    const second = await other.goto(link);
    expect(second?.status()).toBe(410);
    await expect(other.locator("h1").textContent()).resolves.toBe("This sign-in link no longer works");
    await checkPage(other, "sign-in-link-used");
    await other.close();

    // The town's desk.
    await page.getByRole("link", { name: "Boise, Idaho" }).click();
    await expect(page.locator("h1").textContent()).resolves.toBe("Boise: operator desk");
    await expect(page.getByTestId("subscribers").textContent()).resolves.toBe(String(subscribers));
    await checkPage(page, "desk");

    // Tomorrow's note: preview, then save.
    await page.getByLabel("Your note").fill("The *lantern walk* starts at the Foothills center. Bring a [flashlight](https://lantern-walk.example.org/).");
    await page.getByLabel("Signed").fill("Dana Ruiz");
    await page.getByRole("button", { name: "Preview" }).click();
    await expect(page.getByTestId("note-preview").innerHTML()).resolves.toMatch(/<em>lantern walk<\/em>[\s\S]*Dana Ruiz/);
    await expect(page.getByLabel("Your note").inputValue()).resolves.toContain("Bring a [flashlight]");
    await checkPage(page, "desk-note-preview");
    await page.getByRole("button", { name: "Save the note" }).click();
    await expect(page.getByRole("status").first().textContent()).resolves.toContain("Your note is saved");
    await expect(page.getByTestId("note-2026-11-22").innerHTML()).resolves.toContain("<em>lantern walk</em>");

    // A feed.
    await page.getByLabel("Address of a calendar or news feed").fill(`${src.url}/boise-gazette.rss`);
    await page.getByRole("button", { name: "Add the feed" }).click();
    await expect(page.getByTestId("feed-status").first().textContent()).resolves.toMatch(/^Working\. Last fetch: .* Items: 1\.$/);

    // The free listing, in words (no ISO times): approved, published.
    await expect(page.locator("article.listing", { hasText: "Foothills lantern walk" }).textContent()).resolves.toMatch(/When: Sat, Nov 28, all day\. Where: Julia Davis Park/);
    await page.getByRole("button", { name: 'Approve "Foothills lantern walk"' }).click();
    await expect(page.getByRole("status").first().textContent()).resolves.toContain("Approved");
    expect((await (await server.get(`/api/listing-order?id=${free.orderId}`)).json()).status).toBe("published");

    // The statement: the lease's first month, netted against no sales yet.
    await expect(page.getByTestId("statement").locator("tbody tr").first().textContent()).resolves.toBe("November 20260$0.00$0.00$0.00$10.00-$10.00$0.00");
    await checkPage(page, "desk-after");

    // Errors next to their fields, what was typed kept: a rejection without a reason, an address that is not a feed.
    const garage = await (await server.post("/api/listing-checkout", { ...EVENT, tier: "free", title: "Garage sale", url: "https://garage-sale.example.net/" })).json();
    await page.reload();
    await page.getByRole("button", { name: "Reject" }).click();
    await expect(page.locator(`#reason-${garage.orderId}-error`).textContent()).resolves.toBe("Say why, in a few words: the buyer reads it.");
    await page.getByLabel("Address of a calendar or news feed").fill("ftp://example.org/feed");
    await page.getByRole("button", { name: "Add the feed" }).click();
    await expect(page.getByLabel("Address of a calendar or news feed").inputValue()).resolves.toBe("ftp://example.org/feed");
    await expect(page.locator("#feed-url-error").isVisible()).resolves.toBe(true);
    await checkPage(page, "desk-errors");

    // Cancelling (local mode): the town stays theirs until the end of the paid period.
    await page.goto(`${server.url}/operator/towns/boise-idaho`);
    await page.getByRole("button", { name: "Cancel the lease" }).click();
    await expect(page.getByTestId("lease-status").textContent()).resolves.toMatch(/^Cancelled\. The town stays yours until December 22, 2026 at 5:00 AM MST/);
    await checkPage(page, "desk-cancelled");

    // An old permanent operator link.
    await page.goto(`${server.url}/operator/${Buffer.from(OPERATOR).toString("base64url")}.${"x".repeat(32)}`);
    await expect(page.locator("h1").textContent()).resolves.toBe("This operator link no longer works");
    await checkPage(page, "old-link");
    expect(errors).toEqual([]);
    await context.close();

    // The next morning (06:30 in Boise): the edition's email carries the note, signed, and the feed's headline.
    server.ctx.config.now = () => new Date("2026-11-22T13:30:00.000Z");
    await runMorning(server.ctx);
    await sendPendingMail(server.ctx);
    const digest = sink.messages.find((m) => m.to.includes("reader@example.org") && /Boise/.test(m.parsed.subject ?? ""));
    expect(digest, "the morning's email to Boise's reader").toBeDefined();
    const text = digest!.parsed.text ?? "";
    expect(text).toContain("lantern walk");
    expect(text).toContain("Dana Ruiz");
    expect(text).toContain("Capitol Boulevard bridge reopens");
    // The approved free listing is on the town's calendar (the email's calendar carries featured listings only).
    const city = await (await server.get("/api/city/boise-idaho")).json();
    expect(city.events.map((e: { title: string }) => e.title)).toContain("Foothills lantern walk");
  }, 120_000);
});
