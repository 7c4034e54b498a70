import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { upsertCandidates } from "../../src/store/directory/candidates.ts";
import { launchChromium } from "../helpers/browser.ts";
import { payOnHostedPage } from "../helpers/commerce.ts";
import { startSite, wordPressSite, type Site } from "../helpers/directory-sites.ts";
import { csrfOf, getWith, postForm, signIn, type Jar } from "../helpers/operator.ts";
import { geoidOf } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";

// The town directory on the operator desk: the directory's sources of the town are listed beside the
// operator's own feeds, marked as such; the operator checks the directory now, removes a source
// (the weekly re-check does not bring it back) and restores it.

const NOW = "2026-11-24T15:00:00.000Z";
const OPERATOR = "ely-operator@example.com";
let sink: SmtpSink;
let server: TestServer;
let paper: Site;
let jar: Jar;
const desk = () => `${server.url}/operator/towns/ely-nevada`;
const deskHtml = async () => (await getWith(jar, desk())).text();

beforeAll(async () => {
  sink = await new SmtpSink().start();
  paper = await startSite();
  wordPressSite(paper, { name: "The Ely Times", items: [{ title: "Council approves new water rates", link: `${paper.url}/water-rates/`, published: "2026-11-23T18:00:00Z" }] });
  server = await startTestServer({ SMTP_URL: sink.url, MAIL_SENDER: "off", NOW, FEEDS_ALLOW_ADDRESSES: "127.0.0.1" });
  const lease = await (await server.post("/api/operator-actions", { action: "guest-checkout", city: "Ely", state: "Nevada", email: OPERATOR })).json();
  await payOnHostedPage(lease.checkoutUrl, "$10.00 a month");
  await sendPendingMail(server.ctx);
  upsertCandidates(server.ctx.db, [{
    placeGeoid: geoidOf(server.ctx.db, "ely-nevada"), kind: "news", scope: "town", name: "The Ely Times", url: `${paper.url}/`,
    feedUrls: [], platform: "wordpress", platformId: null, dataset: "test-directory.csv", datasetRow: "2",
  }], NOW);
  jar = await signIn(server, sink, OPERATOR);
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
  await paper?.close();
});

/** With SCREENSHOT_DIR set, the desk's Feeds section at 390 px (for looking at, not asserted). */
async function shoot(html: string, name: string) {
  fs.mkdirSync(process.env.SCREENSHOT_DIR!, { recursive: true });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 390, height: 900 } });
    await page.setContent(html.replace(/<head>/, `<head><base href="${server.url}/">`));
    await page.locator("#feeds").screenshot({ path: path.join(process.env.SCREENSHOT_DIR!, name) });
  } finally {
    await browser.close();
  }
}

describe("directory sources on the operator desk", () => {
  it("checks the directory now and lists the source found, marked as the directory's", async () => {
    const before = await deskHtml();
    expect(before).not.toContain("From the town directory:");
    expect(before).toContain("The town directory knows 1 possible source for your town, checked each week.");
    const res = await postForm(jar, `${desk()}/directory/check`, { csrf: csrfOf(before) });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/operator/towns/ely-nevada?done=directory-checked#feeds");
    const html = await deskHtml();
    expect(html).toContain("<strong>The Ely Times</strong> (RSS)");
    expect(html).toContain(`From the town directory: <a href="${paper.url}/" rel="nofollow noopener">${new URL(paper.url).host}</a>. Checked`);
    if (process.env.SCREENSHOT_DIR) await shoot(html, "directory-desk-listed-390.png");
    // Pressed again at once: the site is not asked again.
    const asked = paper.requests.length;
    await postForm(jar, `${desk()}/directory/check`, { csrf: csrfOf(html) });
    expect(paper.requests.length).toBe(asked);
  });

  it("removes it for the town: the re-check leaves it out, and Restore brings it back", async () => {
    let html = await deskHtml();
    const id = /feeds\/(\d+)\/remove/.exec(html)![1];
    expect((await postForm(jar, `${desk()}/feeds/${id}/remove`, { csrf: csrfOf(html) })).status).toBe(303);
    html = await deskHtml();
    expect(html).toContain("<h3>Removed directory sources</h3>");
    expect(html).toContain(`<strong>The Ely Times</strong>: <a href="${paper.url}/feed/"`);
    expect(html).not.toMatch(/feeds\/\d+\/remove/);
    // The directory is checked again (an hour later: the desk does not check a site twice in 10 minutes): the removed source stays out.
    server.ctx.config.now = () => new Date(Date.parse(NOW) + 3_600_000);
    const requestsBefore = paper.requests.length;
    await postForm(jar, `${desk()}/directory/check`, { csrf: csrfOf(html) });
    html = await deskHtml();
    expect(paper.requests.length).toBeGreaterThan(requestsBefore);
    expect(html).not.toMatch(/feeds\/\d+\/remove/);
    expect(html).toContain("Restore The Ely Times");
    if (process.env.SCREENSHOT_DIR) await shoot(html, "directory-desk-removed-390.png");
    const restored = await postForm(jar, `${desk()}/directory/restore`, { csrf: csrfOf(html), url: `${paper.url}/feed/` });
    expect(restored.headers.get("location")).toBe("/operator/towns/ely-nevada?done=directory-restored#feeds");
    html = await (await getWith(jar, `${server.url}${restored.headers.get("location")}`)).text();
    expect(html).toMatch(/feeds\/\d+\/remove/);
    expect(html).not.toContain("Removed directory sources");
    expect(html).toContain("Restored: the source was checked again");
  }, 60_000);
});
