import fs from "node:fs";
import path from "node:path";
import { HtmlValidate } from "html-validate";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subscriberToken } from "../../src/services/readers/unsubscribe.ts";
import { launchChromium } from "../helpers/browser.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// The manage page as a reader uses it, in Chromium without JavaScript: for one of their two towns
// they choose once a week on Tuesday, 7:30 AM, and leave out sun times; the page confirms and shows
// the choices kept; a value the page never offers (a tampered form) is refused next to its field.
// Each page passes html-validate and axe (every impact), fits 390 px, and is photographed at 390 px
// when SCREENSHOT_DIR is set.

const AXE = path.resolve(import.meta.dirname, "../../node_modules/axe-core/axe.min.js");
const SHOTS = process.env.SCREENSHOT_DIR;
const validator = new HtmlValidate({ extends: ["html-validate:recommended"] });
const READER = "reader@example.org";

let server: TestServer;
let browser: Browser;
let noJs: BrowserContext;
let withJs: BrowserContext;
let manage: string;
const prefs = (slug: string) => server.ctx.db.prepare(`SELECT frequency, weekly_day, delivery_minute, hidden_sections FROM subscribers s
  JOIN places p ON p.geoid = s.place_geoid WHERE s.email = ? AND p.slug = ?`).get(READER, slug);

beforeAll(async () => {
  server = await startTestServer({ MAIL_SENDER: "off" });
  addSubscriber(server.ctx.db, "boise-idaho", READER);
  addSubscriber(server.ctx.db, "ely-nevada", READER);
  const id = server.ctx.db.prepare("SELECT id FROM subscribers WHERE email = ? ORDER BY id").pluck().get(READER) as number;
  manage = `${server.url}/subscriptions/${subscriberToken(server.ctx, id, READER)}`;
  browser = await launchChromium();
  noJs = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } });
  withJs = await browser.newContext({ viewport: { width: 390, height: 844 } });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** html-validate on the HTML as served, axe in a page that runs scripts (the served HTML), no sideways scroll at 390 px, a screenshot. */
async function check(html: string, name: string): Promise<void> {
  const report = await validator.validateString(html, `${name}.html`);
  expect(report.results.flatMap((r) => r.messages.map((m) => `${m.ruleId}: ${m.message}`)), name).toEqual([]);
  const page = await withJs.newPage();
  await page.route(manage, (r) => r.fulfill({ status: 200, contentType: "text/html; charset=utf-8", body: html }));
  await page.route(`${server.url}/**`, (r) => (r.request().url() === manage ? r.fallback() : r.continue()));
  await page.goto(manage);
  await page.evaluate(fs.readFileSync(AXE, "utf8"));
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }).axe;
    return (await axe.run(document, { resultTypes: ["violations"] })).violations.map((v) => `${v.id} (${v.impact}) at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  });
  expect(violations, name).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth), name).toBeLessThanOrEqual(390);
  if (SHOTS) {
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, `${name}-390.png`), fullPage: true });
  }
  await page.close();
}

/** The form of one town on the page. */
const townForm = (page: Page, town: string) => page.getByRole("form", { name: `Choices for ${town}` });

describe("the manage page without JavaScript", () => {
  it("shows each town's choices with visible labels, saves one town's and confirms", async () => {
    const page = await noJs.newPage();
    page.setDefaultTimeout(5000);
    const first = await page.goto(manage);
    expect(first!.status()).toBe(200);
    await check(await first!.text(), "manage-page");
    const ely = townForm(page, "Ely, Nevada");
    // The defaults, as labels a reader reads.
    expect(await ely.getByLabel("Every morning").isChecked()).toBe(true);
    expect(await ely.getByLabel("Day of the weekly email").inputValue()).toBe("saturday");
    expect(await ely.getByLabel(/Delivery time \(Pacific Time\)/).inputValue()).toBe("06:00");
    expect(await page.getByText("Ely, Nevada: every morning at 6:00 AM Pacific Time.").isVisible()).toBe(true);

    await ely.getByLabel("Once a week").check();
    await ely.getByLabel("Day of the weekly email").selectOption({ label: "Tuesday" });
    await ely.getByLabel(/Delivery time/).selectOption({ label: "7:30 AM" });
    await ely.getByLabel("Sunrise and sunset").check();
    const methods: string[] = [];
    page.on("request", (r) => { if (r.isNavigationRequest()) methods.push(r.method()); });
    const [answer] = await Promise.all([page.waitForNavigation(), ely.getByRole("button", { name: "Save choices for Ely" }).click()]);
    expect(answer!.status()).toBe(200);
    const html = await answer!.text();
    await check(html, "manage-page-saved");
    const saved = "Saved. Ely, Nevada: once a week, on Tuesdays at 7:30 AM Pacific Time, without Sunrise and sunset.";
    expect(await page.getByRole("status").textContent()).toBe(saved);
    // The post is answered with a redirect (303) to a page of its own: a reload shows it again and posts nothing.
    expect(answer!.request().redirectedFrom()?.method()).toBe("POST");
    expect(page.url()).toBe(`${manage}?done=saved&city=ely-nevada`);
    await page.reload();
    expect(methods).toEqual(["POST", "GET", "GET"]);
    expect(await page.getByRole("status").textContent()).toBe(saved);
    expect(prefs("ely-nevada")).toEqual({ frequency: "weekly", weekly_day: 2, delivery_minute: 450, hidden_sections: "sun" });
    // The other town is as it was; the form shows what is kept.
    expect(prefs("boise-idaho")).toEqual({ frequency: "daily", weekly_day: 6, delivery_minute: 360, hidden_sections: "" });
    const again = townForm(page, "Ely, Nevada");
    expect(await again.getByLabel("Once a week").isChecked()).toBe(true);
    expect(await again.getByLabel(/Delivery time/).inputValue()).toBe("07:30");
    expect(await again.getByLabel("Sunrise and sunset").isChecked()).toBe(true);
    expect(await townForm(page, "Boise, Idaho").getByLabel("Every morning").isChecked()).toBe(true);
    await page.close();
  });

  it("the day of the weekly email is greyed while Every morning is chosen, and a day sent with it changes nothing", async () => {
    const page = await noJs.newPage();
    page.setDefaultTimeout(5000);
    await page.goto(manage);
    const boise = townForm(page, "Boise, Idaho");
    const day = boise.getByLabel("Day of the weekly email");
    expect(await boise.getByLabel("Every morning").isChecked()).toBe(true);
    const look = () => day.evaluate((el) => ({ pointer: getComputedStyle(el).pointerEvents, border: getComputedStyle(el).borderStyle }));
    expect(await look()).toEqual({ pointer: "none", border: "dashed" });
    await boise.getByLabel("Once a week").check();
    expect(await look()).toEqual({ pointer: "auto", border: "solid" });
    await page.close();
    // Without JavaScript the field is still sent: with "Every morning" the server keeps the stored day.
    const before = prefs("boise-idaho");
    const res = await fetch(manage, { method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "city=boise-idaho&frequency=daily&weeklyDay=tuesday&deliveryTime=06%3A00" });
    expect(res.status).toBe(303);
    expect(prefs("boise-idaho")).toEqual(before);
  });

  it("a value the page never offers is refused next to its field, and nothing is saved", async () => {
    const before = prefs("boise-idaho");
    const res = await fetch(manage, {
      method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "city=boise-idaho&frequency=daily&weeklyDay=saturday&deliveryTime=04%3A00",
    });
    expect(res.status).toBe(400);
    const html = await res.text();
    await check(html, "manage-page-error");
    const page = await noJs.newPage();
    await page.setContent(html);
    const time = townForm(page, "Boise, Idaho").getByLabel(/Delivery time \(Mountain Time\)/);
    expect(await time.getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator("#time-boise-idaho-error").textContent()).toBe("Choose a time from 5:00 to 9:00 AM.");
    expect(await page.getByRole("alert").textContent()).toBe("Nothing was saved: see the message next to the field.");
    expect(prefs("boise-idaho")).toEqual(before);
    await page.close();
  });

  it("the daily footer's once-a-week page: one button, valid and accessible; pressing it switches the town", async () => {
    const id = server.ctx.db.prepare("SELECT s.id FROM subscribers s JOIN places p ON p.geoid = s.place_geoid WHERE s.email = ? AND p.slug = 'boise-idaho'").pluck().get(READER) as number;
    const weekly = `${server.url}/weekly/${subscriberToken(server.ctx, id, READER)}`;
    // The confirmation's address, asked for alone (a link scanner), neither changes the town nor confirms anything.
    const early = await fetch(`${weekly}?done=weekly`);
    expect(await early.text()).not.toContain("Done:");
    const page = await noJs.newPage();
    page.setDefaultTimeout(5000);
    const shown = await page.goto(weekly);
    await check(await shown!.text(), "weekly-page");
    expect(await page.getByRole("button").allTextContents()).toEqual(["Send me Boise once a week"]);
    expect(prefs("boise-idaho")).toMatchObject({ frequency: "daily" });
    const methods: string[] = [];
    page.on("request", (r) => { if (r.isNavigationRequest()) methods.push(r.method()); });
    const [done] = await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Send me Boise once a week" }).click()]);
    await check(await done!.text(), "weekly-page-done");
    const confirmed = "Done: reader@example.org gets Boise once a week, on Saturdays, instead of every morning.";
    expect(await page.getByRole("status").textContent()).toBe(confirmed);
    expect(prefs("boise-idaho")).toMatchObject({ frequency: "weekly", weekly_day: 6 });
    // The post is answered with a redirect (303) to the page's own GET: a reload shows it again and posts nothing.
    expect(done!.request().redirectedFrom()?.method()).toBe("POST");
    expect(page.url()).toBe(`${weekly}?done=weekly`);
    await page.reload();
    expect(methods).toEqual(["POST", "GET", "GET"]);
    expect(await page.getByRole("status").textContent()).toBe(confirmed);
    // Back to every morning (the manage page, say): reloading the old confirmation changes nothing and confirms nothing.
    server.ctx.db.prepare("UPDATE subscribers SET frequency = 'daily' WHERE id = ?").run(id);
    await page.reload();
    expect(prefs("boise-idaho")).toMatchObject({ frequency: "daily" });
    expect(await page.getByRole("status").count()).toBe(0);
    expect(await page.getByRole("button").allTextContents()).toEqual(["Send me Boise once a week"]);
    await page.close();
    // The redirect carries the headers of the page itself (its address has the token).
    const posted = await fetch(weekly, { method: "POST", redirect: "manual" });
    expect(posted.status).toBe(303);
    expect(posted.headers.get("location")).toBe(`${new URL(weekly).pathname}?done=weekly`);
    expect(posted.headers.get("cache-control")).toBe("no-store");
    expect(posted.headers.get("referrer-policy")).toBe("no-referrer");
    expect(prefs("boise-idaho")).toMatchObject({ frequency: "weekly", weekly_day: 6 });
  });
});

describe("the manage page with JavaScript", () => {
  it("disables the day of the weekly email while Every morning is chosen, and saves the day chosen with Once a week", async () => {
    const page = await withJs.newPage();
    page.setDefaultTimeout(5000);
    const errors: string[] = [];
    page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
    // A daily town (Ely) and a weekly one (Boise): in the daily one the day is disabled as the page opens.
    const set = server.ctx.db.prepare("UPDATE subscribers SET frequency = ?, weekly_day = 6 WHERE email = ? AND place_geoid = (SELECT geoid FROM places WHERE slug = ?)");
    set.run("daily", READER, "ely-nevada");
    set.run("weekly", READER, "boise-idaho");
    await page.goto(manage);
    expect(await townForm(page, "Ely, Nevada").getByLabel("Day of the weekly email").isDisabled()).toBe(true);
    const boise = townForm(page, "Boise, Idaho");
    const day = boise.getByLabel("Day of the weekly email");
    // In the weekly one it is there to change.
    expect(await boise.getByLabel("Once a week").isChecked()).toBe(true);
    expect(await day.isEnabled()).toBe(true);
    await boise.getByLabel("Every morning").check();
    expect(await day.isDisabled()).toBe(true);
    await boise.getByLabel("Once a week").check();
    expect(await day.isEnabled()).toBe(true);
    await day.selectOption({ label: "Wednesday" });
    await Promise.all([page.waitForNavigation(), boise.getByRole("button", { name: "Save choices for Boise" }).click()]);
    expect(await page.getByRole("status").textContent()).toBe("Saved. Boise, Idaho: once a week, on Wednesdays at 6:00 AM Mountain Time.");
    expect(prefs("boise-idaho")).toMatchObject({ frequency: "weekly", weekly_day: 3 });
    // The page's script runs under the site's Content-Security-Policy (no violation reported).
    expect(errors).toEqual([]);
    await page.close();
  });
});
