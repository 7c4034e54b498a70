import fs from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/browser.ts";
import type { TestServer } from "../helpers/server.ts";
import { startSiteWithEditions } from "../helpers/site-pages.ts";

// City cards beyond the home page: /cities and each state page show every listed city's latest
// edition, its lead (the subject, linked) and the opening of its news, on a phone without sideways
// scrolling; the markdown twins say the same. With SCREENSHOT_DIR set, the pages are photographed.

const SHOTS = process.env.SCREENSHOT_DIR;
let server: TestServer;
let browser: Browser;
/** Boise's latest edition as stored: its subject and the first words of its weather line. */
let lead: string;

beforeAll(async () => {
  server = await startSiteWithEditions();
  browser = await launchChromium();
  lead = server.ctx.db.prepare("SELECT subject FROM editions WHERE date = '2026-11-21' AND subject LIKE 'Boise%'").pluck().get() as string;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("city cards on /cities and the state pages", () => {
  for (const pathname of ["/states/idaho", "/cities"]) {
    for (const width of [390, 1280]) {
      it(`${pathname} at ${width} px shows Boise's latest lead and excerpt, without scrolling sideways`, async () => {
        const page = await browser.newPage({ viewport: { width, height: 900 } });
        await page.goto(server.url + pathname);
        const card = page.locator(".card-grid li", { hasText: "Boise" });
        await expect.poll(() => card.count()).toBe(1);
        const leadLink = card.locator(".lead a");
        expect(await leadLink.textContent()).toBe(lead);
        expect(await leadLink.getAttribute("href")).toBe("/boise-idaho/2026-11-21");
        expect(await leadLink.isVisible()).toBe(true);
        // The excerpt is the edition's weather line, in words.
        const excerpt = (await card.locator(".excerpt").textContent()) ?? "";
        expect(excerpt).toMatch(/^Light rain today; overcast and 40°F at publication/);
        expect(excerpt).not.toMatch(/\p{Extended_Pictographic}/u);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        // Each card fits its column: nothing in it is wider than the card.
        const widest = await card.evaluate((li) => Math.max(...[...li.querySelectorAll("*")].map((e) => e.getBoundingClientRect().right)) - li.getBoundingClientRect().right);
        expect(widest).toBeLessThanOrEqual(1);
        if (SHOTS) {
          fs.mkdirSync(SHOTS, { recursive: true });
          await page.screenshot({ path: path.join(SHOTS, `cards${pathname.replace(/\W+/g, "-")}-${width}.png`), fullPage: true });
        }
        await page.close();
      });
    }
  }

  it("the state page lists its cities largest first, each with its population", async () => {
    const html = await (await fetch(`${server.url}/states/new-york`)).text();
    expect(html).toMatch(/New York, Nov 21:[^<]*<\/a><\/h2>/);
    expect(html).toMatch(/population \d{1,3}(,\d{3})+/);
  });

  it("the markdown twins of /cities and the state page carry the same lead and excerpt", async () => {
    for (const twin of ["/cities.md", "/states/idaho.md"]) {
      const text = await (await fetch(server.url + twin)).text();
      expect(text, twin).toContain(`[${lead}](${server.url}/boise-idaho/2026-11-21.md) (Saturday, November 21, 2026). Light rain today; overcast and 40°F at publication`);
    }
  });

  it("San Juan's page names its time zone as readers do: Atlantic Time", async () => {
    const html = await (await fetch(`${server.url}/san-juan-puerto-rico`)).text();
    expect(html).toContain("published each morning on Atlantic Time.");
    expect(await (await fetch(`${server.url}/san-juan-puerto-rico.md`)).text()).toContain("published each morning on Atlantic Time.");
  });
});
