import fs from "node:fs";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/browser.ts";
import type { TestServer } from "../helpers/server.ts";
import { startSiteWithEditions } from "../helpers/site-pages.ts";

// The developer-facing pages on a phone (code blocks are wider than a phone): /developers and the /mcp set-up page at 390 px
// never scroll sideways (code blocks scroll inside themselves), paths are not broken inside a word,
// no literal backtick shows, and /mcp is in the site's layout with a main landmark.

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

describe("developer pages at 390 px", () => {
  for (const pathname of ["/developers", "/mcp"]) {
    it(`${pathname} fits, its code scrolls inside itself, paths stay whole, no backticks show`, async () => {
      const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
      const failed: string[] = [];
      page.on("response", (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`); });
      await page.goto(server.url + pathname, { waitUntil: "load" });
      fs.mkdirSync("/tmp/developer-pages", { recursive: true });
      await page.screenshot({ path: `/tmp/developer-pages/${pathname.slice(1)}-390.png`, fullPage: true });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, `${pathname} scrolls sideways by ${overflow} px`).toBeLessThanOrEqual(0);
      // Every code block is at most as wide as the page; what is longer scrolls within it.
      const blocks = await page.evaluate(() => [...document.querySelectorAll("pre")].map((p) => ({ right: p.getBoundingClientRect().right, overflowX: getComputedStyle(p).overflowX })));
      for (const b of blocks) {
        expect(b.right).toBeLessThanOrEqual(390);
        expect(["auto", "scroll"]).toContain(b.overflowX);
      }
      // An inline path is broken only where a path may break (after a slash), never inside a word.
      const broken = await page.evaluate(() => {
        const out: string[] = [];
        for (const code of document.querySelectorAll(":not(pre) > code")) {
          const text = code.textContent ?? "";
          const range = document.createRange();
          const lines = new Map<number, string>();
          // Every character of every text node (a <wbr> splits the text), by the line it sits on.
          const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const t = node.textContent ?? "";
            for (let i = 0; i < t.length; i++) {
              range.setStart(node, i);
              range.setEnd(node, i + 1);
              const top = Math.round(range.getBoundingClientRect().top);
              lines.set(top, (lines.get(top) ?? "") + t[i]);
            }
          }
          const parts = [...lines.values()];
          for (let i = 1; i < parts.length; i++) {
            const before = parts[i - 1].at(-1) ?? "", after = parts[i][0] ?? "";
            if (/[a-z0-9]/i.test(before) && /[a-z0-9]/i.test(after)) out.push(`${text}: "${parts[i - 1]}" | "${parts[i]}"`);
          }
        }
        return out;
      });
      expect(broken, `${pathname}: paths broken mid-word`).toEqual([]);
      expect(await page.locator("main").count()).toBe(1);
      const visible = await page.locator("main").innerText();
      expect(visible, `${pathname}: literal backticks`).not.toContain("`");
      expect(visible, `${pathname}: escaped entities shown as text`).not.toMatch(/&(quot|amp|lt|gt|#\d+);/);
      expect(failed, `${pathname}: failed loads`).toEqual([]);
      await page.close();
    });
  }

  it("markdown twins have one top-level heading (MD025) and lists set apart by blank lines (MD032)", async () => {
    for (const twin of ["/developers.md", "/boise-idaho.md", "/boise-idaho/2026-11-21.md", "/cities.md", "/states.md", "/states/idaho.md", "/feed.md"]) {
      const text = await (await server.get(twin)).text();
      const front = /^---\n([\s\S]*?)\n---\n/.exec(text);
      expect(front?.[1] ?? "", twin).not.toMatch(/^\s*"?title"?\s*[:=]/m);
      const lines = text.slice(front?.[0].length ?? 0).split("\n");
      let fenced = false;
      const h1: string[] = [];
      const unspaced: string[] = [];
      lines.forEach((line, i) => {
        if (/^ {0,3}(```|~~~)/.test(line)) fenced = !fenced;
        if (fenced) return;
        if (/^# /.test(line)) h1.push(line);
        const prev = lines[i - 1] ?? "";
        if (/^\s*([-*+]|\d+\.) /.test(line) && prev.trim() !== "" && !/^\s*([-*+]|\d+\.) /.test(prev) && !/^\s{2,}/.test(prev)) unspaced.push(`${prev} | ${line}`);
      });
      expect(h1.length, `${twin}: ${h1.join(" / ")}`).toBe(1);
      expect(unspaced, twin).toEqual([]);
    }
  });

  it("/favicon.ico answers", async () => {
    const res = await server.get("/favicon.ico");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^image\//);
  });
});
