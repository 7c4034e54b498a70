import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { EMBED_SIZE } from "../../src/contract/operations/oembed.ts";
import { launchChromium } from "../helpers/browser.ts";
import { composeEdition } from "../../src/core/edition/compose.ts";
import { elyInputs } from "../fixtures/edition/ely.ts";
import { addEdition } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// An oEmbed consumer in a real browser: the `html` of /api/oembed inserted into another page shows
// the card, at the promised fixed size, with nothing cut off and no error.

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer();
  addEdition(server.ctx.db, "boise-idaho", "2026-11-20", "Boise: frost, then sun, and a very long subject line that has to wrap inside the card without overflowing it",
    "Frost on the foothills until ten, then sun. ".repeat(30));
  const ely = composeEdition(elyInputs({ note: null }));
  addEdition(server.ctx.db, "ely-nevada", "2026-11-24", ely.subject, ely.markdown);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("the oEmbed card in a browser", () => {
  it("renders inside the consumer's page at the fixed size, showing the subject and a link to the page", async () => {
    const oembed = await (await server.get(`/api/oembed?url=${encodeURIComponent(`${server.url}/boise-idaho/2026-11-20`)}`)).json() as { html: string; width: number; height: number };
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
    page.on("pageerror", (e) => errors.push(e.message));
    try {
      // The consumer is another site (another origin) that inserts the html as is.
      const consumer = http.createServer((_req, res) => {
        res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
        res.end(`<!doctype html><html><head><title>A blog</title></head><body><h1>A blog post</h1>${oembed.html}</body></html>`);
      });
      await new Promise<void>((resolve) => consumer.listen(0, "127.0.0.1", resolve));
      onTestFinished(() => new Promise<void>((resolve) => consumer.close(() => resolve())));
      await page.goto(`http://127.0.0.1:${(consumer.address() as AddressInfo).port}/post`);
      const iframe = page.locator("iframe");
      const box = await iframe.boundingBox();
      expect([Math.round(box!.width), Math.round(box!.height)]).toEqual([EMBED_SIZE.width, EMBED_SIZE.height]);
      const frame = await (await iframe.elementHandle())!.contentFrame();
      await frame!.waitForLoadState("load");
      await expect.poll(() => frame!.locator("h1").textContent()).toContain("Boise: frost, then sun");
      const link = frame!.locator("h1 a");
      expect(await link.getAttribute("href")).toBe(`${server.url}/boise-idaho/2026-11-20`);
      expect(await link.getAttribute("target")).toBe("_blank");
      // The card fits its frame: nothing is cut off at the edges (the excerpt is clipped inside it).
      const size = await frame!.evaluate(() => ({ w: document.documentElement.scrollWidth, h: document.documentElement.scrollHeight }));
      expect(size.w).toBeLessThanOrEqual(EMBED_SIZE.width);
      expect(size.h).toBeLessThanOrEqual(EMBED_SIZE.height);
      // Boxes are in the consumer page's coordinates: the footer ends inside the iframe's box.
      const footer = await frame!.locator(".foot").boundingBox();
      expect(footer!.y + footer!.height).toBeLessThanOrEqual(box!.y + box!.height);
      expect(await frame!.locator(".foot a").isVisible()).toBe(true);
      // Its style applied (the inline stylesheet is allowed by its Content-Security-Policy).
      expect(await frame!.locator("body").evaluate((b) => getComputedStyle(b).display)).toBe("flex");
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("shows a real edition's first paragraph of news as a sentence, never headings run into the text, inside <main>", async () => {
    const html = await (await server.get("/embed/ely-nevada/2026-11-24")).text();
    expect(html).toMatch(/<main>[\s\S]*<h1>[\s\S]*<\/main>/);
    const excerpt = /<p class="excerpt">([^<]*)<\/p>/.exec(html)![1]!;
    // The warning's own first paragraph, not "Ely Daily ... Good morning ... Winter Storm Warning Until ...".
    expect(excerpt).toMatch(/^Until 4:00 PM Wed, Nov 25\. Heavy snow expected\./);
    expect(excerpt).not.toMatch(/Good morning|Weather|On the calendar|#/);
  });
});
