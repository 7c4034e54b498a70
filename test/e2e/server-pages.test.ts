import fs from "node:fs";
import path from "node:path";
import { HtmlValidate } from "html-validate";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subscriberToken } from "../../src/services/readers/unsubscribe.ts";
import { launchChromium } from "../helpers/browser.ts";
import { EVENT, PINNED_NOW } from "../helpers/commerce.ts";
import { addEdition, addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// Every page the server renders itself (outside the Astro site): valid markup (html-validate's
// recommended rules) and no axe-core violation of any impact (minor and moderate count too), in
// Chromium at 390 px. The site's own pages are covered by markup.test.ts and phones.test.ts.

const AXE = path.resolve(import.meta.dirname, "../../node_modules/axe-core/axe.min.js");
const validator = new HtmlValidate({ extends: ["html-validate:recommended"] });

let server: TestServer;
let browser: Browser;
const pages: Array<{ name: string; open: (page: Page) => Promise<string> }> = [];

beforeAll(async () => {
  // Pinned: the edition and EVENT are days around it, whatever day the test runs.
  server = await startTestServer({ MAIL_SENDER: "off", SUBSCRIBE_RATE_LIMIT: "1000", NOW: PINNED_NOW });
  const db = server.ctx.db;
  addSubscriber(db, "boise-idaho", "reader@example.org");
  addEdition(db, "boise-idaho", "2026-11-20", "Boise: frost, then sun");
  const id = db.prepare("SELECT id FROM subscribers WHERE email = ?").pluck().get("reader@example.org") as number;
  const token = subscriberToken(server.ctx, id, "reader@example.org");
  const order = await (await server.post("/api/listing-checkout", { ...EVENT, tier: "featured" })).json() as { checkoutUrl: string; orderId: string };
  const get = (p: string) => async (page: Page) => {
    const res = await page.goto(server.url + p);
    return (await res!.text());
  };
  /** A page answered to a form post, shown as the browser would show it. */
  const posted = (p: string, form: Record<string, string>) => async (page: Page) => {
    const res = await server.post(p, new URLSearchParams(form).toString(), { headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    const html = await res.text();
    await page.setContent(html);
    return html;
  };
  pages.push(
    { name: "MCP set-up (/mcp)", open: get("/mcp") },
    { name: "place finder results (/places?q=)", open: get("/places?q=boise") },
    { name: "place finder, search too short", open: get("/places?q=b") },
    { name: "subscribe thanks (POST /subscribe)", open: posted("/subscribe", { email: "new@example.org", slug: "boise-idaho" }) },
    { name: "subscribe form with an error", open: posted("/subscribe", { email: "not-an-email", slug: "boise-idaho" }) },
    { name: "unsubscribe", open: get(`/unsubscribe/${token}`) },
    { name: "manage subscriptions", open: get(`/subscriptions/${token}`) },
    { name: "checkout", open: get(new URL(order.checkoutUrl).pathname) },
    { name: "purchase done", open: get(`/purchase/done?order=${order.orderId}`) },
    { name: "purchase cancelled", open: get(`/purchase/cancelled?order=${order.orderId}`) },
    { name: "embed card", open: get("/embed/boise-idaho") },
  );
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("server-rendered pages", () => {
  it("each is valid markup, and no axe violation of any impact", { timeout: 120_000 }, async () => {
    const failures: string[] = [];
    for (const { name, open } of pages) {
      const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
      try {
        const html = await open(page);
        expect(html.slice(0, 15), name).toBe("<!DOCTYPE html>");
        const report = await validator.validateString(html);
        failures.push(...report.results.flatMap((r) => r.messages.map((m) => `${name}: html-validate ${m.ruleId}: ${m.message}`)));
        await page.evaluate(fs.readFileSync(AXE, "utf8"));
        const result = await page.evaluate(async (isEmbed) => {
          const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: Array<{ id: string; impact: string; nodes: unknown[] }> }> } }).axe;
          // An embed card is a fragment shown inside another page's iframe: it has no landmarks of its own.
          return axe.run(document, { resultTypes: ["violations"], ...(isEmbed ? { rules: { region: { enabled: false }, "landmark-one-main": { enabled: false }, "page-has-heading-one": { enabled: false } } } : {}) });
        }, name === "embed card");
        failures.push(...result.violations.map((v) => `${name}: axe ${v.id} (${v.impact}, ${v.nodes.length} nodes)`));
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        if (overflow > 0) failures.push(`${name}: scrolls sideways by ${overflow} px at 390`);
      } finally {
        await page.close();
      }
    }
    expect(failures).toEqual([]);
  });
});
