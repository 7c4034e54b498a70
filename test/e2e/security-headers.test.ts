import crypto from "node:crypto";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSite } from "../../src/services/site/publish.ts";
import { addEdition } from "../helpers/seed.ts";
import { launchChromium } from "../helpers/browser.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// The Content-Security-Policy is one the pages satisfy: in a real browser no page type reports a
// violation, and the scripts it allows by hash (the inline scripts the templates ship, recorded from
// the build: the subscribe form's) still work.

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer({ MAIL_SENDER: "off" });
  addEdition(server.ctx.db, "boise-idaho", "2026-11-20", "Boise: light rain after noon");
  await buildSite(server.ctx);
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const PAGES = ["/", "/cities", "/boise-idaho", "/boise-idaho/2026-11-20", "/states/idaho", "/developers", "/twin-falls-idaho", "/no-such-page"];

describe("security headers", () => {
  it("every page type carries one CSP, allowing by hash only the inline scripts the templates ship, and forbids framing", async () => {
    const policies = new Set<string>();
    for (const path of PAGES) {
      const res = await server.get(path);
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp, path).toMatch(/script-src 'self'/);
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).toContain("object-src 'none'");
      expect(res.headers.get("x-frame-options"), path).toBe("DENY");
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
      const html = await res.text();
      // Each inline script a page carries is allowed by its hash (JSON-LD data blocks never run).
      for (const [, attrs, body] of html.matchAll(/<script\b(?![^>]*\bsrc=)([^>]*)>([\s\S]*?)<\/script>/g)) {
        if (/application\/ld\+json/.test(attrs)) continue;
        expect(csp, path).toContain(`'sha256-${crypto.createHash("sha256").update(body).digest("base64")}'`);
      }
      policies.add(csp);
    }
    // The hashes come from the build, not from each page: the same list on every page type.
    expect(policies.size).toBe(1);
  });

  it("every response, API errors included, says nosniff and a referrer policy", async () => {
    for (const path of ["/api/cities", "/api/city/not-a-slug!", "/api/nothing", "/openapi.json", "/feed.xml", "/boise-idaho.md"]) {
      const res = await server.get(path);
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(res.headers.get("referrer-policy"), path).toBeTruthy();
    }
  });

  it("no page type reports a CSP violation in Chromium, and the subscribe form's script still runs", async () => {
    for (const path of PAGES) {
      const page = await browser.newPage();
      const violations: string[] = [];
      page.on("console", (m) => { if (/Content Security Policy/i.test(m.text())) violations.push(m.text()); });
      await page.addInitScript(() => {
        document.addEventListener("securitypolicyviolation", (e) => console.error(`Content Security Policy violation: ${e.violatedDirective} ${e.blockedURI}`));
      });
      await page.goto(server.url + path);
      await page.waitForLoadState("networkidle");
      expect(violations, path).toEqual([]);
      await page.close();
    }
    // The form's inline script (allowed by its hash) takes over the submit and answers in the page.
    const page = await browser.newPage();
    await page.goto(`${server.url}/boise-idaho`);
    await page.fill("form[data-subscribe] input[name=email]", "csp@example.org");
    await page.click("form[data-subscribe] button[type=submit]");
    await expect(page.locator("[data-result]").first().textContent()).resolves.toBeTruthy();
    await page.waitForFunction(() => document.querySelector("[data-result]")?.getAttribute("data-state") === "ok");
    expect(page.url()).toBe(`${server.url}/boise-idaho`);
    await page.close();
  });
});
