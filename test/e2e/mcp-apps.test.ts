import fs from "node:fs";
import type { Browser, Frame } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APP_VIEWS, type AppViewName } from "../../src/mcp/apps.ts";
import { launchChromium } from "../helpers/browser.ts";
import { EVENT, PINNED_NOW } from "../helpers/commerce.ts";
import { connectV2, type Connected } from "../helpers/mcp-clients.ts";
import { addEdition, addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// Each MCP Apps view rendered as a host renders it: its HTML (read over MCP) in a sandboxed iframe,
// fed the real tool result over the extension's postMessage protocol by a minimal host page. At
// 360 px (a narrow chat column), light and dark: the view shows what the result says, loads nothing
// from outside and never scrolls sideways.

let server: TestServer;
let browser: Browser;
let mcp: Connected;

beforeAll(async () => {
  // Pinned: the edition (2026-11-20) just behind it, the lantern walk (2027-01-16) ahead, whatever day the test runs.
  server = await startTestServer({ MAIL_SENDER: "off", SUBSCRIBE_RATE_LIMIT: "1000", NOW: PINNED_NOW });
  addSubscriber(server.ctx.db, "boise-idaho", "reader@example.org");
  addEdition(server.ctx.db, "boise-idaho", "2026-11-20", "Boise: frost, then sun", "Frost on the foothills until ten, then sun. The farmers market moves indoors to the Depot, 1st Street at Grove, from Saturday.");
  mcp = await connectV2(`${server.url}/mcp`);
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await mcp?.close();
  await server?.stop();
});

/** The host page: an iframe of the view (srcdoc, sandboxed as hosts do) and the host side of the protocol. */
const HOST = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>host</title>
<style>body{margin:0} iframe{border:0;width:100%;height:2000px;display:block}</style></head><body>
<iframe id="view" sandbox="allow-scripts" title="view"></iframe>
<script>
window.opened = [];
window.startView = (html, args, result, theme) => {
  const frame = document.getElementById("view");
  window.addEventListener("message", (ev) => {
    const m = ev.data;
    if (ev.source !== frame.contentWindow || !m || m.jsonrpc !== "2.0") return;
    const reply = (result) => frame.contentWindow.postMessage({ jsonrpc: "2.0", id: m.id, result }, "*");
    if (m.method === "ui/initialize") reply({ protocolVersion: "2026-01-26", hostInfo: { name: "test-host", version: "1" }, hostCapabilities: { openLinks: {} }, hostContext: { theme, displayMode: "inline" } });
    else if (m.method === "ui/notifications/initialized") {
      frame.contentWindow.postMessage({ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: args } }, "*");
      frame.contentWindow.postMessage({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: result }, "*");
    } else if (m.method === "ui/open-link") { window.opened.push(m.params.url); reply({}); }
    else if (m.method === "ui/notifications/size-changed") window.lastSize = m.params;
  });
  frame.srcdoc = html;
};
</script></body></html>`;

async function viewHtml(view: AppViewName): Promise<string> {
  const { contents } = await mcp.client.readResource({ uri: APP_VIEWS[view].uri });
  return (contents[0] as { text: string }).text;
}

async function render(view: AppViewName, args: Record<string, unknown>, theme: "light" | "dark", failing = false) {
  const result = await mcp.client.callTool({ name: { edition: "get_archive", city: "get_city", order: "get_listing_order" }[view], arguments: args });
  expect(Boolean(result.isError), JSON.stringify(result.content)).toBe(failing);
  const page = await browser.newPage({ viewport: { width: 360, height: 800 }, colorScheme: theme });
  const outside: string[] = [];
  page.on("request", (r) => { if (!/^(data|about|blob):/.test(r.url())) outside.push(r.url()); });
  await page.setContent(HOST);
  await page.evaluate(([html, a, r, t]) => (window as unknown as { startView: (...x: unknown[]) => void }).startView(html, a, r, t), [await viewHtml(view), args, result, theme] as const);
  const frame = await new Promise<Frame>((resolve) => {
    const poll = () => { const f = page.frames().find((x) => x !== page.mainFrame()); if (f) resolve(f); else setTimeout(poll, 20); };
    poll();
  });
  await frame.waitForSelector("#view h1", { timeout: 5000 });
  return { page, frame, result, outside };
}

async function check(view: AppViewName, args: Record<string, unknown>, expectText: (r: Record<string, unknown>) => string[]) {
  for (const theme of ["light", "dark"] as const) {
    const { page, frame, result, outside } = await render(view, args, theme);
    try {
      const text = await frame.locator("#view").innerText();
      for (const t of expectText(result.structuredContent as Record<string, unknown>)) expect(text, `${view} ${theme}`).toContain(t);
      expect(text, `${view} ${theme}`).not.toMatch(/\bnull\b|\bundefined\b|NaN/);
      // Within the narrow column: nothing wider than the frame.
      const overflow = await frame.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, `${view} ${theme} scrolls sideways`).toBeLessThanOrEqual(0);
      // The host's theme wins over the page's preference; the colours follow it.
      expect(await frame.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
      const bg = await frame.evaluate(() => getComputedStyle(document.body).backgroundColor);
      expect(bg, `${view} ${theme}`).toBe(theme === "dark" ? "rgb(23, 25, 28)" : "rgb(253, 252, 249)");
      expect(outside, `${view} loaded from outside`).toEqual([]);
      // Links open through the host, not inside the frame.
      const link = frame.locator("#view a[href]").last();
      const href = await link.getAttribute("href");
      await link.click();
      await expect.poll(() => page.evaluate(() => (window as unknown as { opened: string[] }).opened)).toContain(href);
      fs.mkdirSync("/tmp/mcp-apps", { recursive: true });
      await page.screenshot({ path: `/tmp/mcp-apps/${view}-${theme}-360.png`, fullPage: false });
    } finally {
      await page.close();
    }
  }
}

describe("MCP Apps views at 360 px", () => {
  it("the edition view shows get_archive's edition", async () => {
    await check("edition", { slug: "boise-idaho", date: "2026-11-20" }, (r) => [String(r.subject), "Frost on the foothills until ten", "Open this edition on citydaily"]);
  });

  it("the town view shows get_city's town", async () => {
    await check("city", { slug: "boise-idaho" }, (r) => [`${r.city}, ${r.state}`, "Boise: frost, then sun", "1 subscriber", "Latest editions"]);
  });

  it("the order view shows get_listing_order's progress", async () => {
    const created = await mcp.client.callTool({ name: "create_event_listing", arguments: { ...EVENT, tier: "standard", title: "Lantern walk along the river", startsAt: "2027-01-16T18:30" } });
    const orderId = (created.structuredContent as { orderId: string }).orderId;
    // The event's day, time and venue, as the town's clock reads them.
    await check("order", { id: orderId }, (r) => [String(r.title), "Sat, Jan 16, 2027, 6:30 PM · Julia Davis Park", "Waiting for payment", "Pay $10.00", "Boise, Idaho"]);
  });

  it("a tool error shows the problem's detail and what to do as sentences, not JSON", async () => {
    const { page, frame } = await render("city", { slug: "marfa-texas" }, "light", true);
    try {
      const text = await frame.locator("#view").innerText();
      expect(text).toContain("City not found");
      expect(text).toContain("Marfa, Texas is a real U.S. place, but it has no newsletter yet");
      expect(text).toContain("What to do: Read reason. unknown_place: the slug names no U.S. place");
      expect(text).toContain("Open Marfa, Texas on citydaily");
      expect(text).not.toMatch(/[{}]|"code"|"detail"/);
      await page.screenshot({ path: "/tmp/mcp-apps/city-error-light-360.png" });
    } finally {
      await page.close();
    }
  });
});
