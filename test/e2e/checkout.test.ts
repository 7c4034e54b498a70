import fs from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/browser.ts";
import { BUSINESS, EVENT } from "../helpers/commerce.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// The local provider's hosted checkout in a real browser (Debian chromium): from the checkoutUrl an
// API answer gives, a person sees what they buy and its price, presses Pay, lands on the success page,
// and the order is published; Cancel charges nothing. axe-core finds no serious violation.

const AXE = path.resolve(import.meta.dirname, "../../node_modules/axe-core/axe.min.js");
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer({ MAIL_SENDER: "off", NOW: "2026-11-22T12:00:00.000Z", SUBSCRIBE_RATE_LIMIT: "1000" });
  addSubscriber(server.ctx.db, "boise-idaho", "reader@example.org");
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function open(url: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  const res = await page.goto(url);
  expect(res?.status()).toBe(200);
  return { page, errors };
}

async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated over the devtools protocol: the page's CSP (rightly) refuses an injected inline script.
  await page.evaluate(fs.readFileSync(AXE, "utf8"));
  const result = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: Array<{ id: string; impact: string }> }> } }).axe;
    return axe.run(document, { resultTypes: ["violations"] });
  });
  return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id);
}

describe("the hosted checkout in a browser", () => {
  it("from checkoutUrl to published", async () => {
    const title = "Harvest Fair <script>alert(1)</script>";
    const body = await (await server.post("/api/listing-checkout", { ...EVENT, tier: "featured", title })).json();
    const { page, errors } = await open(body.checkoutUrl);
    expect(await page.title()).toBe("Checkout · citydaily");
    await expect(page.getByText(title, { exact: false }).first().isVisible()).resolves.toBe(true);
    expect(await page.getByTestId("price").textContent()).toBe("$25.00");
    expect(await page.getByLabel("Email").inputValue()).toBe(EVENT.buyerEmail);
    expect(await seriousViolations(page)).toEqual([]);

    await Promise.all([page.waitForURL(`${server.url}/orders/${body.orderId}`), page.getByRole("button", { name: "Pay $25.00" }).click()]);
    expect(await page.locator("h1").textContent()).toBe("Your listing is published");
    expect(await page.getByTestId("status").textContent()).toBe("Your listing is published");
    expect(errors).toEqual([]);
    await page.close();

    // What an integrator polls says the same.
    const order = await (await server.get(`/api/listing-order?id=${body.orderId}`)).json();
    expect(order).toMatchObject({ status: "published", published: true, title });
  });

  it("Cancel charges nothing and leads back to the open link", async () => {
    const body = await (await server.post("/api/business-checkout", BUSINESS)).json();
    const { page } = await open(body.checkoutUrl);
    await Promise.all([page.waitForURL(/\/orders\/lo_[0-9a-f-]+\?checkout=cancelled$/), page.getByRole("button", { name: "Cancel" }).click()]);
    expect(await page.locator("h1").textContent()).toBe("Waiting for your payment");
    await expect(page.getByText("You left the checkout: nothing was charged.").isVisible()).resolves.toBe(true);
    await page.getByRole("link", { name: "Pay $10.00" }).click();
    expect(await page.getByTestId("price").textContent()).toBe("$10.00");
    await page.close();
  });
});
