import fs from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/browser.ts";
import type { TestServer } from "../helpers/server.ts";
import { PAGE_TYPES, startSiteWithEditions } from "../helpers/site-pages.ts";

// Every page type on a small phone, a common phone and a tablet (pages once scrolled sideways there): the page never scrolls
// sideways, and every chart label that is shown renders at 12 px or more. With SCREENSHOT_DIR set,
// each page is also photographed there at 1280 and 390 px (for looking at, not asserted).

const WIDTHS = [320, 390, 768];
const SHOTS = process.env.SCREENSHOT_DIR;
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startSiteWithEditions();
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("on phones and tablets", () => {
  for (const [type, pathname] of Object.entries(PAGE_TYPES)) {
    it(`${type} (${pathname}) fits 320, 390 and 768 px, with legible chart labels`, async () => {
      for (const width of WIDTHS) {
        const page = await browser.newPage({ viewport: { width, height: 800 } });
        await page.goto(server.url + pathname);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(overflow, `${pathname} at ${width}px`).toBeLessThanOrEqual(width);
        const labels = await page.evaluate(() => [...document.querySelectorAll("figure.chart svg text")]
          .filter((t) => t.getClientRects().length > 0 && getComputedStyle(t).display !== "none")
          .map((t) => {
            const svg = t.closest("svg")!;
            const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
            return { text: t.textContent, px: Number(t.getAttribute("font-size") ?? 16) * scale };
          }));
        const small = labels.filter((l) => l.px < 12).map((l) => `${l.text} (${l.px.toFixed(1)} px)`);
        expect(small, `${pathname} at ${width}px`).toEqual([]);
        if (type === "city" || type === "edition") expect(labels.length).toBeGreaterThan(0);
        await page.close();
      }
      if (SHOTS) {
        fs.mkdirSync(SHOTS, { recursive: true });
        for (const width of [1280, 390]) {
          const page = await browser.newPage({ viewport: { width, height: 900 } });
          await page.goto(server.url + pathname);
          await page.screenshot({ path: path.join(SHOTS, `${type.replace(/\W+/g, "-")}-${width}.png`), fullPage: true });
          await page.close();
        }
      }
    });
  }
});
