import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSite } from "../../src/services/site/publish.ts";
import { launchChromium } from "../helpers/browser.ts";
import { addEdition } from "../helpers/seed.ts";
import { subscriberToken } from "../../src/services/readers/unsubscribe.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// The subscribe form in Chromium, with JavaScript off (an ordinary form post to /subscribe and an
// HTML answer) and on (JSON to /api/subscribe, the answer in the page naming the town).
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer({ MAIL_SENDER: "off", SUBSCRIBE_RATE_LIMIT: "1000" });
  // Towns with an edition are the home page's picker choices.
  addEdition(server.ctx.db, "boise-idaho", "2026-11-21", "Boise: clearing and cold");
  addEdition(server.ctx.db, "st-louis-missouri", "2026-11-21", "St. Louis: windy and mild");
  await buildSite(server.ctx);
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const subscribedTo = (email: string) =>
  (server.ctx.db.prepare("SELECT p.slug FROM subscribers s JOIN places p ON p.geoid = s.place_geoid WHERE s.email = ?").pluck().all(email) as string[]);

describe("the subscribe form with JavaScript disabled", () => {
  it("subscribes on a city page and answers a page naming the town, with a link back", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${server.url}/boise-idaho`);
    const form = page.locator("form[data-subscribe]");
    // A wrong address first: the form comes back with the error next to the field and the typed text kept.
    await form.locator("input[name=email]").fill("reader-at-example.com");
    await Promise.all([page.waitForURL(`${server.url}/subscribe`), form.locator("button[type=submit]").click()]);
    expect(await page.locator("h1").textContent()).toBe("Please check your subscription");
    expect(await page.locator("#email").inputValue()).toBe("reader-at-example.com");
    expect(await page.locator("#email-error").textContent()).toMatch(/^Email address: must be an email address/);
    expect(await page.locator("#email").getAttribute("aria-describedby")).toBe("email-error");
    expect(await page.locator("main").textContent()).toContain("Town: Boise, Idaho");
    expect(await page.evaluate(() => document.body.innerText)).not.toContain('"code"');

    await page.locator("#email").fill("nojs.reader@example.com");
    await Promise.all([page.waitForLoadState("load"), page.locator("main button[type=submit]").click()]);
    expect(await page.locator("h1").textContent()).toBe("Thanks: the Boise, Idaho newsletter is on its way");
    expect(subscribedTo("nojs.reader@example.com")).toEqual(["boise-idaho"]);
    // No sideways scrolling on a phone, and the way back leads to the town.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await Promise.all([page.waitForURL(`${server.url}/boise-idaho`), page.getByRole("link", { name: "Back to Boise, Idaho" }).click()]);
    await context.close();
  });
});

describe("the subscribe form with JavaScript enabled", () => {
  it("posts JSON, says which town the reader subscribed to and keeps that town chosen", async () => {
    const page = await browser.newPage();
    const posted: string[] = [];
    page.on("request", (r) => { if (r.method() === "POST") posted.push(new URL(r.url()).pathname); });
    await page.goto(`${server.url}/`);
    const form = page.locator("form[data-subscribe]");
    const select = form.locator("select[name=slug]");
    const options = await select.locator("option").evaluateAll((os) => os.map((o) => ({ value: (o as HTMLOptionElement).value, label: o.textContent!.trim() })).filter((o) => o.value));
    expect(options.length).toBeGreaterThan(1);
    const town = options[1];
    await select.selectOption(town.value);
    await form.locator("input[name=email]").fill("js.reader@example.com");
    await form.locator("button[type=submit]").click();
    const result = page.locator("[data-result]");
    await expect.poll(() => result.getAttribute("data-state")).toBe("ok");
    expect(await result.textContent()).toContain(`You're subscribed to the ${town.label} daily.`);
    expect(await select.inputValue()).toBe(town.value);
    expect(await form.locator("input[name=email]").inputValue()).toBe("");
    expect(page.url()).toBe(`${server.url}/`);
    expect(posted).toEqual(["/api/subscribe"]);
    expect(subscribedTo("js.reader@example.com")).toEqual([town.value]);
    await page.close();
  });
});

describe("the unsubscribe and manage pages", () => {
  it("wear the site's masthead and footer, link back to the site and the town, and fit a phone", async () => {
    const row = server.ctx.db.prepare("SELECT s.id, s.email FROM subscribers s WHERE s.email = ?").get("nojs.reader@example.com") as { id: number; email: string };
    const token = subscriberToken(server.ctx, row.id, row.email);
    const page = await browser.newPage({ viewport: { width: 390, height: 800 } });
    page.setDefaultTimeout(5000);
    for (const path of [`/unsubscribe/${token}`, `/subscriptions/${token}`]) {
      await page.goto(`${server.url}${path}`);
      expect(await page.locator("header.site a.brand").getAttribute("href")).toBe("/");
      // The site's own header and footer (one layout, Base.astro): the States link, the tagline, the footer's links.
      expect(await page.locator("nav.primary").getByRole("link", { name: "States" }).getAttribute("href")).toBe("/states");
      expect(await page.locator("header.site .tagline").textContent()).toBe("A free morning newsletter for every U.S. city");
      expect(await page.locator("footer.site").getByRole("link", { name: "llms.txt" }).getAttribute("href")).toBe("/llms.txt");
      // The site's stylesheet: its serif logo and headings, its palette, not the browser's defaults.
      expect(await page.locator("header.site a.brand").evaluate((a) => getComputedStyle(a).fontFamily)).toMatch(/^Charter/);
      expect(await page.locator("h1").evaluate((h) => getComputedStyle(h).fontFamily)).toMatch(/^Charter/);
      expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(253, 252, 249)");
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    }
    await page.goto(`${server.url}/unsubscribe/${token}`);
    expect(await page.locator("h1").textContent()).toBe("Unsubscribe from Boise, Idaho?");
    await Promise.all([page.waitForLoadState("load"), page.getByRole("button", { name: "Unsubscribe from Boise" }).click()]);
    expect(await page.locator("h1").textContent()).toBe("You are unsubscribed");
    await page.goto(`${server.url}/unsubscribe/${token}`);
    expect(await page.getByRole("link", { name: "Read the Boise edition on the web" }).getAttribute("href")).toBe("/boise-idaho");
    await page.close();
  });
});
