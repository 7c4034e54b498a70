import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSite } from "../../src/services/site/publish.ts";
import { launchChromium } from "../helpers/browser.ts";
import { queueEditionDigests } from "../../src/services/mail/digests.ts";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { referralCounts } from "../../src/store/readers/subscribers.ts";
import { addEdition, addSubscriber, geoidOf } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink, type ReceivedMail } from "../helpers/smtp-sink.ts";

// Forward to a neighbor: each digest's share line carries the reader's referral code; a subscription
// made through it (the API, or the form without JavaScript) is counted for that reader.
const ELY = "ely-nevada";
const ELY_TOWN = { city: "Ely", state: "Nevada", slug: ELY };
let sink: SmtpSink;
let server: TestServer;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  server = await startTestServer({ SMTP_URL: sink.url, MAIL_SENDER: "off", NOW: "2026-11-24T15:00:00.000Z", MAIL_FROM: "citydaily <news@citydaily.example>" });
  addSubscriber(server.ctx.db, ELY, "ann@example.org");
  addSubscriber(server.ctx.db, ELY, "bob@example.org");
  const id = addEdition(server.ctx.db, ELY, "2026-11-24", "Ely, Nov 24: Snow")!;
  queueEditionDigests(server.ctx, { id, placeGeoid: geoidOf(server.ctx.db, ELY), date: "2026-11-24" });
  await sendPendingMail(server.ctx);
  await sink.waitForCount(2);
});
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
});

const shareLinkOf = (mail: ReceivedMail) => {
  const text = mail.parsed.text!;
  const html = mail.parsed.html as string;
  expect(text).toContain("FORWARD TO A NEIGHBOR");
  expect(html).toContain("<strong>Forward to a neighbor.</strong> Know someone in Ely who would like this?");
  const link = /Send them this link to subscribe: (\S+)/.exec(text)![1];
  expect(html).toContain(`href="${link}"`);
  return link;
};

describe("forward to a neighbor", () => {
  it("each reader's digest carries their own share link to the town page, and 'Read on the web' once", () => {
    const [ann] = sink.to("ann@example.org");
    const [bob] = sink.to("bob@example.org");
    const a = shareLinkOf(ann);
    const b = shareLinkOf(bob);
    expect(a).toMatch(new RegExp(`^${server.url}/${ELY}\\?ref=[0-9a-f]{12}$`));
    expect(a).not.toBe(b);
    for (const part of [ann.parsed.text!, ann.parsed.html as string]) expect(part.match(/Read on the web/g)).toHaveLength(1);
  });

  it("a subscription through the API or the no-JavaScript form counts for the reader who shared", async () => {
    const annLink = shareLinkOf(sink.to("ann@example.org")[0]);
    const annRef = new URL(annLink).searchParams.get("ref")!;
    const viaApi = await server.post("/api/subscribe", { email: "carol@example.org", ...ELY_TOWN, ref: annRef });
    expect(viaApi.status).toBe(200);
    // The form posts from the page the link opened; its Referer carries the code.
    const viaForm = await fetch(`${server.url}/subscribe`, {
      method: "POST", redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Referer: annLink },
      body: new URLSearchParams({ email: "dan@example.org", slug: ELY, city: "Ely", state: "Nevada" }).toString(),
    });
    expect(viaForm.status).toBeLessThan(400);
    // An unknown code, or one on another site's address, counts for nobody and does not stop the subscription.
    expect((await server.post("/api/subscribe", { email: "erin@example.org", ...ELY_TOWN, ref: "ffffffffffff" })).status).toBe(200);
    const foreign = await fetch(`${server.url}/subscribe`, {
      method: "POST", redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Referer: `https://elsewhere.example/${ELY}?ref=${annRef}` },
      body: new URLSearchParams({ email: "fay@example.org", slug: ELY, city: "Ely", state: "Nevada" }).toString(),
    });
    expect(foreign.status).toBeLessThan(400);

    const counts = referralCounts(server.ctx.db, geoidOf(server.ctx.db, ELY));
    expect(counts).toEqual([{ subscriberId: expect.any(Number), email: "ann@example.org", referred: 2, active: 2 }]);
    const active = server.ctx.db.prepare("SELECT COUNT(*) FROM subscribers WHERE email IN ('erin@example.org', 'fay@example.org') AND status = 'active'").pluck().get();
    expect(active).toBe(2);
  });

  it("a bad code is a validation problem only when it is too long", async () => {
    const res = await server.post("/api/subscribe", { email: "gus@example.org", ...ELY_TOWN, ref: "x".repeat(40) });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("validation_error");
  });

  describe("in a browser, from the share link", () => {
    let browser: Browser;
    beforeAll(async () => {
      await buildSite(server.ctx);
      browser = await launchChromium();
    }, 120_000);
    afterAll(async () => browser?.close());

    const referrerOf = (email: string) =>
      server.ctx.db.prepare("SELECT r.email FROM subscribers s JOIN subscribers r ON r.id = s.referred_by WHERE s.email = ?").pluck().get(email);

    it("without JavaScript, even after the form comes back with an error", async () => {
      const link = shareLinkOf(sink.to("bob@example.org")[0]);
      const context = await browser.newContext({ javaScriptEnabled: false });
      const page = await context.newPage();
      await page.goto(link);
      const form = page.locator("form[data-subscribe]");
      await form.locator("input[name=email]").fill("not-an-address");
      await Promise.all([page.waitForURL(`${server.url}/subscribe`), form.locator("button[type=submit]").click()]);
      expect(await page.locator("h1").textContent()).toBe("Please check your subscription");
      await page.locator("#email").fill("hal@example.org");
      await Promise.all([page.waitForLoadState("load"), page.locator("main button[type=submit]").click()]);
      expect(await page.locator("h1").textContent()).toBe("Thanks: the Ely, Nevada newsletter is on its way");
      expect(referrerOf("hal@example.org")).toBe("bob@example.org");
      await context.close();
    });

    it("with JavaScript, the page's script sends the code", async () => {
      const link = shareLinkOf(sink.to("bob@example.org")[0]);
      const page = await browser.newPage();
      await page.goto(link);
      const form = page.locator("form[data-subscribe]");
      await form.locator("input[name=email]").fill("ida@example.org");
      await form.locator("button[type=submit]").click();
      await expect.poll(() => page.locator("[data-result]").getAttribute("data-state")).toBe("ok");
      expect(referrerOf("ida@example.org")).toBe("bob@example.org");
      await page.close();
    });
  });
});
