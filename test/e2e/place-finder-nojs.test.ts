import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { buildSite } from "../../src/services/site/publish.ts";
import { launchChromium } from "../helpers/browser.ts";
import { addEdition } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// "Find your town" with JavaScript off (a box that needs script does nothing without it): Enter in the box submits a GET form to /places,
// which lists the matching towns; a town without a newsletter can be subscribed to right there.

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer({ MAIL_SENDER: "off", SUBSCRIBE_RATE_LIMIT: "1000" });
  addEdition(server.ctx.db, "boise-idaho", "2026-11-20", "Boise: frost, then sun");
  await buildSite(server.ctx);
  browser = await launchChromium();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("the place finder without JavaScript", () => {
  it("Enter shows the matching towns; a town without a newsletter is subscribed to from the list", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    try {
      await page.goto(`${server.url}/`);
      await page.getByRole("combobox", { name: "Find your town" }).fill("marfa texas");
      await page.getByRole("combobox", { name: "Find your town" }).press("Enter");
      await page.waitForURL(/\/places\?q=marfa\+texas$/);
      const first = page.locator("ul.places > li").first();
      expect(await first.locator("h2").textContent()).toBe("Marfa, Texas");
      expect(await first.textContent()).toContain("no newsletter yet");
      // No sideways scrolling on a phone.
      expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: "/tmp/places-nojs-390.png", fullPage: true });
      await first.getByLabel(/Your email/).fill("nojs-marfa@example.org");
      await first.getByRole("button", { name: "Subscribe" }).click();
      await page.waitForURL(/\/subscribe$/);
      expect(await page.locator("h1").textContent()).toContain("Marfa, Texas");
      const rows = server.ctx.db.prepare("SELECT s.status FROM subscribers s JOIN places p ON p.geoid = s.place_geoid WHERE s.email = ? AND p.slug = ?").all("nojs-marfa@example.org", "marfa-texas");
      expect(rows).toEqual([{ status: "active" }]);
      // A town with a newsletter links to its page.
      await page.goto(`${server.url}/`);
      await page.getByRole("combobox", { name: "Find your town" }).fill("boise");
      await page.getByRole("button", { name: "Find" }).first().click();
      await page.getByRole("link", { name: "Boise, Idaho" }).first().click();
      await page.waitForURL(/\/boise-idaho$/);
    } finally {
      await context.close();
    }
  });
});
