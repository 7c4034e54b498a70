import fs from "node:fs";
import path from "node:path";
import { HtmlValidate } from "html-validate";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDays } from "../../src/lib/time.ts";
import { localDate } from "../../src/lib/time.ts";
import { subscriberToken } from "../../src/services/readers/unsubscribe.ts";
import { launchChromium } from "../helpers/browser.ts";
import { startSiteWithEditions } from "../helpers/site-pages.ts";
import type { TestServer } from "../helpers/server.ts";

// Buying a listing as a person who knows nothing of the API (people buy through pages, not the API): from the city page, with
// JavaScript and without it, through the buying page, the local checkout page and the order page,
// which says the listing is published; an event and a business. Every new page passes html-validate
// and axe (all impacts), and is photographed at 390 and 1280 px (SCREENSHOTS=dir keeps the files).

const AXE = path.resolve(import.meta.dirname, "../../node_modules/axe-core/axe.min.js");
const SHOTS = process.env.SCREENSHOTS;
const validator = new HtmlValidate({ extends: ["html-validate:recommended"], rules: { "no-inline-style": "off" } });
let server: TestServer;
let browser: Browser;
let eventDay: string;
let jsContext: BrowserContext;
const withoutJs = new WeakSet<BrowserContext>();
/** A browser context; one without JavaScript is remembered so its pages are checked as served. */
async function newContext(options: { javaScriptEnabled?: boolean; viewport?: { width: number; height: number } } = {}): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  if (options.javaScriptEnabled === false) withoutJs.add(context);
  return context;
}

beforeAll(async () => {
  server = await startSiteWithEditions();
  eventDay = addDays(localDate(server.ctx.config.now(), "America/Boise"), 6);
  browser = await launchChromium();
  jsContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated over the devtools protocol: the page's CSP (rightly) refuses an injected inline script.
  await page.evaluate(fs.readFileSync(AXE, "utf8"));
  const result = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }).axe;
    return axe.run(document, { resultTypes: ["violations"] });
  });
  return result.violations.map((v) => `${v.id} (${v.impact}) at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/** html-validate and axe (every impact) on the page as served, the page fits a phone, and two screenshots. */
/** The HTML the server last sent for a page (not the browser's serialisation of its DOM). */
const served = new WeakMap<Page, Response>();
function track(page: Page): Page {
  page.setDefaultTimeout(5000);
  page.on("response", (r) => { if (r.request().resourceType() === "document" && r.frame() === page.mainFrame() && (r.status() < 300 || r.status() >= 400)) served.set(page, r as unknown as Response); });
  return page;
}

async function checkPage(context: BrowserContext, visited: Page, name: string): Promise<void> {
  const html = await (served.get(visited) as unknown as { text(): Promise<string> }).text();
  const report = await validator.validateString(html, `${name}.html`);
  expect(report.results.flatMap((r) => r.messages.map((m) => `${m.ruleId}: ${m.message}`)), name).toEqual([]);
  // axe needs JavaScript: a page seen without it is checked as served, in a page that runs scripts.
  let page = visited;
  if (withoutJs.has(context)) {
    page = await jsContext.newPage();
    await page.route(visited.url(), (r) => r.fulfill({ status: 200, contentType: "text/html; charset=utf-8", body: html }));
    await page.goto(visited.url());
  }
  expect(await axeViolations(page), name).toEqual([]);
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} at ${width}px`).toBeLessThanOrEqual(width);
    if (SHOTS) {
      fs.mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: true });
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  if (page !== visited) await page.close();
}

async function fillEvent(page: Page, title: string): Promise<void> {
  await page.getByLabel("Event name").fill(title);
  await page.getByLabel("Description").fill("Pumpkins, cider and a brass band on the lawn.");
  await page.getByLabel("Date").fill(eventDay);
  await page.getByLabel("Start time").fill("10:00");
  await page.getByLabel("Venue").fill("Julia Davis Park");
  await page.getByLabel("Web page", { exact: true }).fill("https://harvestfair.example/2026");
  await page.getByLabel("Your email").fill("buyer@example.com");
}

async function payAndSeePublished(page: Page, price: string): Promise<string> {
  await page.waitForURL(/\/checkout\/cs_local_/);
  expect(await page.getByTestId("price").textContent()).toBe(price);
  await Promise.all([page.waitForURL(/\/orders\/lo_[0-9a-f-]{36}$/), page.getByRole("button", { name: `Pay ${price}` }).click()]);
  expect(await page.locator("h1").textContent()).toBe("Your listing is published");
  expect(await page.getByTestId("status").textContent()).toBe("Your listing is published");
  return page.url().split("/orders/")[1];
}

describe("buying a listing in a browser", () => {
  it("an event, with JavaScript: from the city page, inline errors, a live preview, the checkout, the order page", async () => {
    const context = await newContext({ viewport: { width: 1280, height: 900 } });
    const page = track(await context.newPage());
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
    await page.goto(`${server.url}/boise-idaho`);
    await Promise.all([page.waitForURL(/\/advertise\/boise-idaho\?kind=event$/), page.getByRole("link", { name: "List your event" }).click()]);
    expect(await page.locator("h1").textContent()).toBe("Advertise in Boise, Idaho");
    // Prices come from the price list.
    await expect(page.getByText("Featured: $25.00").isVisible()).resolves.toBe(true);
    await checkPage(context, page, "advertise-event");

    // Inline validation from the contract's rules: a bad address is named next to its field on leaving it.
    await page.getByLabel("Your email").fill("not-an-address");
    await page.getByLabel("Event name").focus();
    await expect.poll(() => page.locator("#buyerEmail-error").textContent()).toMatch(/like name@example.com/);
    expect(await page.getByLabel("Your email").getAttribute("aria-invalid")).toBe("true");
    // Submitting with fields missing stays on the page and names each of them; nothing is posted.
    await page.getByRole("button", { name: /Continue to payment/ }).click();
    expect(page.url()).toMatch(/\/advertise\/boise-idaho\?kind=event$/);
    await expect.poll(() => page.locator("#title-error").textContent()).toBe("Enter the event name.");
    await expect.poll(() => page.locator("#startsDate-error").textContent()).toBe("Enter the day of the event.");
    await checkPage(context, page, "advertise-event-errors");

    await page.getByLabel("Featured: $25.00").check();
    await fillEvent(page, "Harvest Fair in the Park");
    await expect.poll(() => page.locator("#buyerEmail-error").textContent()).toBe("");
    // The preview follows what is typed: the town page's line and the morning email's line.
    const preview = page.locator("#preview .preview");
    await expect.poll(() => preview.getByRole("link", { name: "Harvest Fair in the Park" }).getAttribute("href")).toBe("https://harvestfair.example/2026");
    // A paid placement says so wherever it appears, and its link is marked sponsored.
    await expect.poll(() => preview.locator(".sponsored").first().textContent()).toBe("Sponsored");
    await expect.poll(() => preview.getByRole("link", { name: "Harvest Fair in the Park" }).first().getAttribute("rel")).toBe("sponsored");
    await expect.poll(() => preview.textContent()).toContain("Pumpkins, cider and a brass band on the lawn.");
    await expect.poll(() => preview.textContent()).toContain("Featured events are in Boise's morning email");
    await checkPage(context, page, "advertise-event-preview");

    await page.getByRole("button", { name: "Continue to payment ($25.00)" }).click();
    await checkPage(context, page, "checkout");
    const orderId = await payAndSeePublished(page, "$25.00");
    await expect.poll(() => page.getByRole("link", { name: "Boise, Idaho page" }).getAttribute("href")).toBe("/boise-idaho#calendar-heading");
    await expect.poll(() => page.getByText("$25.00, paid").isVisible()).toBe(true);
    await checkPage(context, page, "order-published");
    expect(errors).toEqual([]);
    const order = await (await server.get(`/api/listing-order?id=${orderId}`)).json();
    expect(order).toMatchObject({ status: "published", product: "event", tier: "featured", title: "Harvest Fair in the Park", startsAt: `${eventDay}T10:00` });
    await context.close();
  });

  it("an event, without JavaScript: the form posts and answers with the errors next to the fields, keeping what was typed", async () => {
    const context = await newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 900 } });
    const page = track(await context.newPage());
    await page.goto(`${server.url}/boise-idaho/2026-11-21`);
    await page.getByRole("link", { name: "List your event" }).click();
    await fillEvent(page, "Lantern Walk");
    await page.getByLabel("Your email").fill("nope");
    await page.getByRole("button", { name: /Continue to payment/ }).click();
    expect(await page.getByRole("alert").first().textContent()).toMatch(/One field needs a change/);
    await expect.poll(() => page.locator("#buyerEmail-error").textContent()).toMatch(/like name@example.com/);
    expect(await page.getByLabel("Event name").inputValue()).toBe("Lantern Walk");
    expect(await page.getByLabel("Venue").inputValue()).toBe("Julia Davis Park");
    // The Preview button answers with the page and the preview drawn as the town page draws it.
    await page.getByLabel("Your email").fill("walker@example.com");
    await page.getByRole("button", { name: "Preview" }).click();
    await expect.poll(() => page.locator("#preview .preview").getByRole("link", { name: "Lantern Walk" }).isVisible()).toBe(true);
    await expect.poll(() => page.locator("#preview").textContent()).toContain("Only featured events are in the morning email");
    await page.getByRole("button", { name: "Continue to payment ($10.00)" }).click();
    const orderId = await payAndSeePublished(page, "$10.00");
    expect((await (await server.get(`/api/listing-order?id=${orderId}`)).json()).published).toBe(true);
    // The town's page shows it to readers.
    const city = await (await server.get("/api/city/boise-idaho")).json();
    expect(city.events.map((e: { title: string }) => e.title)).toContain("Lantern Walk");
    await context.close();
  });

  for (const javaScriptEnabled of [true, false]) {
    it(`a business, ${javaScriptEnabled ? "with" : "without"} JavaScript: from the city page to published`, async () => {
      const context = await newContext({ javaScriptEnabled, viewport: { width: 1280, height: 900 } });
      const page = track(await context.newPage());
      await page.goto(`${server.url}/boise-idaho`);
      await page.getByRole("link", { name: "Advertise in Boise" }).click();
      await page.getByRole("link", { name: "A business" }).click();
      expect(page.url()).toMatch(/\?kind=business$/);
      const name = javaScriptEnabled ? "Rosemary Bakery" : "Corner Books";
      await page.getByLabel("Business name").fill(name);
      await page.getByLabel("Description").fill("Sourdough, croissants and coffee from 7 am.");
      await page.getByLabel("Address").fill("112 N 8th St");
      await page.getByLabel("Web page", { exact: true }).fill(`https://${name.toLowerCase().replace(" ", "-")}.example/`);
      await page.getByLabel("Your email").fill("owner@example.com");
      // The category is missing: named next to its field, the rest kept (by the script, or by the server's answer).
      await page.getByRole("button", { name: /Continue to payment/ }).click();
      await expect.poll(() => page.locator("#category-error").textContent()).toBe("Enter the category.");
      expect(await page.getByLabel("Business name").inputValue()).toBe(name);
      if (!javaScriptEnabled) await checkPage(context, page, "advertise-business-errors");
      await page.getByLabel("Category").fill("Bakery");
      await page.getByRole("button", { name: "Continue to payment ($10.00)" }).click();
      await payAndSeePublished(page, "$10.00");
      await expect.poll(() => page.getByRole("link", { name: "Boise, Idaho page" }).getAttribute("href")).toBe("/boise-idaho#directory-heading");
      const city = await (await server.get("/api/city/boise-idaho")).json();
      expect(city.directory.map((d: { title: string }) => d.title)).toContain(name);
      await context.close();
    });
  }

  it("a press on the button while the field being edited is invalid is never lost, and the page breaks no CSP rule", async () => {
    const context = await newContext({ viewport: { width: 390, height: 900 } });
    const page = track(await context.newPage());
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { cspViolations: string[] }).cspViolations = seen;
      document.addEventListener("securitypolicyviolation", (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    await page.goto(`${server.url}/advertise/boise-idaho?kind=event`);
    // As a person does it: typing in Web page, then pressing and releasing the mouse over the button
    // where it stood at the press. Leaving the field must not move the button between the two.
    await page.getByLabel("Web page", { exact: true }).fill("nope");
    const button = page.getByRole("button", { name: /Continue to payment/ });
    await button.scrollIntoViewIfNeeded();
    const box = (await button.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.up();
    // One press shows every error at once and puts focus on the first field in form order.
    await expect.poll(() => page.locator("#title-error").textContent()).toBe("Enter the event name.");
    await expect.poll(() => page.locator("#startsDate-error").textContent()).toBe("Enter the day of the event.");
    expect(await page.locator("#url-error").textContent()).not.toBe("");
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("title");
    expect(page.url()).toMatch(/\/advertise\/boise-idaho\?kind=event$/);

    // With every field right but the one being edited, the same press submits.
    await page.getByLabel("Standard: $10.00").check();
    await fillEvent(page, "Porch Concert");
    await page.getByLabel("Web page", { exact: true }).fill("https://porch.example/");
    await page.getByLabel("Your email").fill("singer@example.com");
    await page.getByLabel("Your email").focus();
    await button.scrollIntoViewIfNeeded();
    const again = (await button.boundingBox())!;
    await page.mouse.move(again.x + again.width / 2, again.y + again.height / 2);
    await Promise.all([page.waitForURL(/\/checkout\/cs_local_/), (async () => { await page.mouse.down(); await page.mouse.up(); })()]);
    await page.goBack();
    expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);
    await context.close();
  });

  it("without JavaScript, the error summary follows the form's order and an invalid address is written back as valid HTML", async () => {
    const context = await newContext({ javaScriptEnabled: false });
    const page = track(await context.newPage());
    await page.goto(`${server.url}/advertise/boise-idaho?kind=event`);
    await page.getByLabel("Web page", { exact: true }).fill("not a url");
    await page.getByLabel("Your email").fill("nope");
    await page.getByRole("button", { name: /Continue to payment/ }).click();
    const summary = await page.getByRole("alert").locator("li").allTextContents();
    const inForm = await page.locator("#listing-form label[for]").evaluateAll((ls) => ls.map((l) => l.getAttribute("for")));
    const linked = await page.getByRole("alert").locator("li a").evaluateAll((as) => as.map((a) => a.getAttribute("href")!.slice(1)));
    expect(summary.length).toBeGreaterThan(2);
    expect(linked).toEqual([...linked].sort((a, b) => inForm.indexOf(a) - inForm.indexOf(b)));
    expect(summary[0]).toBe("Event name");
    // What was typed is kept, in a control that can hold it (vnu refuses type=url with "not a url").
    expect(await page.getByLabel("Web page", { exact: true }).inputValue()).toBe("not a url");
    expect(await page.getByLabel("Web page", { exact: true }).getAttribute("type")).toBe("text");
    expect(await page.getByLabel("Web page", { exact: true }).getAttribute("inputmode")).toBe("url");
    expect(await page.getByLabel("Your email").getAttribute("inputmode")).toBe("email");
    // A free tier is not called "Free: free".
    expect(await page.locator(".choice strong").allTextContents()).not.toContain("Free: free");
    await context.close();
  });

  it("a rejected listing says why and what to change, keeping what was typed; a held one says what happens next", async () => {
    const context = await newContext({ javaScriptEnabled: false });
    const page = track(await context.newPage());
    await page.goto(`${server.url}/advertise/boise-idaho?kind=event`);
    await fillEvent(page, "Casino night at the park");
    await page.getByRole("button", { name: /Continue to payment/ }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("We cannot take this listing as it is");
    await expect.poll(() => page.locator("#title-error").textContent()).toMatch(/Gambling, betting and casinos are not accepted\. Change the event name/);
    expect(await page.getByLabel("Event name").inputValue()).toBe("Casino night at the park");
    await checkPage(context, page, "advertise-rejected");

    await page.getByLabel("Event name").fill("Herbal detox workshop");
    await page.getByLabel("Web page", { exact: true }).fill("https://herbs.example/");
    await page.getByRole("button", { name: /Continue to payment/ }).click();
    await page.waitForURL(/\/orders\/lo_/);
    expect(await page.locator("h1").textContent()).toBe("A person will look at your listing first");
    await expect.poll(() => page.getByText("What happens next").isVisible()).toBe(true);
    // It updates by itself while a person looks (no JavaScript needed: a Refresh header), says so, and can be stopped.
    expect(await page.getByTestId("updates").textContent()).toBe("This page updates by itself every 60 seconds. Stop updating");
    const res = await fetch(page.url());
    expect(res.headers.get("refresh")).toBe("60");
    expect(await res.text()).not.toContain('http-equiv="refresh"');
    expect((await fetch(`${page.url()}?updates=off`)).headers.get("refresh")).toBeNull();
    await checkPage(context, page, "order-held");
    await context.close();
  });

  it("the other new pages: the towns to advertise in, a town without a newsletter, its lease page", async () => {
    const context = await newContext();
    const page = track(await context.newPage());
    await page.goto(`${server.url}/`);
    await page.getByRole("link", { name: "advertise a business or list your event" }).click();
    await expect.poll(() => page.getByRole("link", { name: "Boise" }).getAttribute("href")).toBe("/advertise/boise-idaho");
    await checkPage(context, page, "advertise-index");

    await page.goto(`${server.url}/twin-falls-idaho`);
    await page.getByRole("link", { name: "Advertise in Twin Falls" }).click();
    await expect.poll(() => page.locator(".page .card").textContent()).toContain("Twin Falls, Idaho has no newsletter yet");
    await checkPage(context, page, "advertise-not-selling");
    await page.getByRole("link", { name: "Lease Twin Falls" }).click();
    expect(await page.locator("h1").textContent()).toBe("Lease Twin Falls, Idaho");
    expect(await page.getByTestId("price").textContent()).toBe("$10.00 a month");
    expect(await page.getByLabel(/Also send me the Twin Falls daily/).isChecked()).toBe(false);
    await checkPage(context, page, "lease");

    // The manage page of a reader who left a city offers to subscribe again.
    await server.post("/api/subscribe", { email: "left@example.org", city: "Boise", state: "Idaho", slug: "boise-idaho" });
    const id = server.ctx.db.prepare("SELECT id FROM subscribers WHERE email = 'left@example.org'").pluck().get() as number;
    const token = subscriberToken(server.ctx, id, "left@example.org");
    await page.goto(`${server.url}/unsubscribe/${token}`);
    await checkPage(context, page, "unsubscribe");
    await fetch(`${server.url}/unsubscribe/${token}`, { method: "POST" });
    await page.goto(`${server.url}/subscriptions/${token}`);
    await checkPage(context, page, "manage-left");
    await page.getByRole("button", { name: "Subscribe again to Boise, Idaho" }).click();
    expect(await page.getByRole("status").textContent()).toBe("Subscribed again: a welcome email is on its way.");
    await checkPage(context, page, "manage");
    await context.close();
  });
});
