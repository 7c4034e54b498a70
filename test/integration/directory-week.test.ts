import { untracked } from "../helpers/click-links.ts";
import fs from "node:fs";
import path from "node:path";
import { HtmlValidate } from "html-validate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyTown } from "../../src/services/directory/verify.ts";
import { drainDueMail } from "../../src/services/mail/sender.ts";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { upsertCandidates } from "../../src/store/directory/candidates.ts";
import type { NewCandidate } from "../../src/core/directory/candidate.ts";
import { launchChromium } from "../helpers/browser.ts";
import { civicPlusSite, legistarApi, startSite, wordPressSite, type Site } from "../helpers/directory-sites.ts";
import { startOpenMeteoServer, type OpenMeteoServer } from "../helpers/open-meteo-server.ts";
import { addSubscriber, geoidOf } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink, type ReceivedMail } from "../helpers/smtp-sink.ts";
import type { FeedItemInput } from "../helpers/town-sources-server.ts";

// A town nobody runs still gets local news: a week of mornings of a town with no operator whose directory entries point
// at stand-ins (a CivicPlus city site, a WordPress paper, Legistar's events API, a county paper): the
// readers get local headlines and the council meeting with its agenda link, each credited with its
// outlet, none repeated, the county paper's only when they name the town; read in the email's text
// and HTML parts and on the web page (390 px; SCREENSHOT_DIR keeps the pictures).

const ELY = "ely-nevada";
const READER = "reader@ely.example.org";
const DATES = ["2026-11-24", "2026-11-25", "2026-11-26", "2026-11-27", "2026-11-28", "2026-11-29", "2026-11-30"];
const morningOf = (date: string) => new Date(`${date}T15:00:00.000Z`);
const AGENDA = "https://ely.legistar1.com/ely/meetings/2026/12/9001_A_City_Council_26-12-01_Agenda.pdf";

let civic: Site, paper: Site, legistar: Site, county: Site;
let meteo: OpenMeteoServer;
let sink: SmtpSink;
let server: TestServer;
const digests = new Map<string, ReceivedMail>();

/** What each site has published by the morning of day `n` (new stories each day, the older ones kept). */
function publish(n: number) {
  const at = (i: number, hour: number) => `${DATES[i] ?? "2026-11-23"}T${String(hour).padStart(2, "0")}:00:00Z`;
  const cityNews: FeedItemInput[] = [];
  const paperNews: FeedItemInput[] = [];
  const countyNews: FeedItemInput[] = [];
  const cityStories = ["Snow Removal Parking Restrictions in Effect", "Water Main Flushing on Aultman Street", "Holiday Trash Pickup Schedule", "Christmas Tree Recycling Drop-off Opens", "Ice Rink Opens at Broadway Park", "Utility Office Closed Friday", "Landfill Winter Hours Begin"];
  const paperStories = [["Council approves new water rates", "Lady Bobcats open season with win"], ["Railroad museum adds Polar Express runs", "Hospital names new chief of staff"], ["Murry Street bridge work wraps up early", "Ely man honored for 40 years of volunteer firefighting"], ["Thanksgiving dinner feeds 300 at senior center", "Bobcats fall in state semifinal"], ["Small Business Saturday draws crowds downtown", "Cave Lake ice thickness still unsafe"], ["Lions Club tree lot sells out", "Wrestlers take second at Elko tournament"], ["Library extends winter hours", "Snowpack above average for November"]];
  for (let i = 0; i <= n; i++) {
    cityNews.push({ title: cityStories[i]!, link: `${civic.url}/CivicAlerts.aspx?AID=${210 + i}`, published: at(i, 9) });
    paperNews.push({ title: paperStories[i]![0]!, link: `${paper.url}/2026/11/story-${i}a/`, published: at(i, 10) });
    paperNews.push({ title: paperStories[i]![1]!, link: `${paper.url}/2026/11/story-${i}b/`, published: at(i, 11) });
    countyNews.push({ title: `Ely planning board hears casino expansion plan, part ${i + 1}`, link: `${county.url}/ely-casino-${i}/`, published: at(i, 12) });
    countyNews.push({ title: `McGill pool repairs, update ${i + 1}`, link: `${county.url}/mcgill-pool-${i}/`, published: at(i, 13) });
  }
  civicPlusSite(civic, {
    city: "Ely",
    news: cityNews,
    events: [{ id: 1451, title: "Christmas Tree Lighting", start: "2026-11-28T17:30", end: "2026-11-28T19:00", location: "Broadway Park, 501 Mill St" }],
    agendas: [{ title: "City Council Regular Meeting - Dec 1, 2026", link: `${civic.url}/AgendaCenter/ViewFile/Agenda/_12012026-312`, published: "2026-11-22T18:00:00Z" }],
  });
  wordPressSite(paper, { name: "The Ely Times", items: paperNews });
  wordPressSite(county, { name: "Great Basin Sun", items: countyNews });
}

beforeAll(async () => {
  [civic, paper, legistar, county] = await Promise.all([startSite(), startSite(), startSite(), startSite()]);
  meteo = await startOpenMeteoServer({ today: DATES[0] });
  sink = await new SmtpSink().start();
  legistarApi(legistar, { ely: [
    { id: 9001, body: "City Council", date: "2026-12-01", time: "6:00 PM", location: "Council Chambers, 501 Mill St", agendaFile: AGENDA },
    { id: 8990, body: "City Council", date: "2026-11-17", time: "6:00 PM", location: "Council Chambers, 501 Mill St", agendaFile: "https://ely.legistar1.com/ely/meetings/2026/11/8990_A.pdf" },
  ] });
  publish(0);
  // The feeds are local stand-ins that answer at once: their timeout only has to outlast a loaded CI
  // machine (at 2 s a morning under load once went without its headlines); no test here is about time.
  server = await startTestServer({
    NOW: morningOf(DATES[0]!).toISOString(), MAIL_SENDER: "off", SMTP_URL: sink.url, OPEN_METEO_URL: meteo.url,
    FEEDS_ALLOW_ADDRESSES: "127.0.0.1", LEGISTAR_API_URL: legistar.url, FEED_TIMEOUT_MS: "10000", SOURCES_TIMEOUT_MS: "500",
    MAIL_FROM: "citydaily <news@citydaily.example>",
  });
  addSubscriber(server.ctx.db, ELY, READER);
  const geoid = geoidOf(server.ctx.db, ELY);
  const cand = (c: Partial<NewCandidate> & Pick<NewCandidate, "kind" | "name" | "url">): NewCandidate =>
    ({ placeGeoid: geoid, scope: "town", feedUrls: [], platform: null, platformId: null, dataset: "test-directory.csv", datasetRow: c.name, ...c });
  upsertCandidates(server.ctx.db, [
    cand({ kind: "government", name: "City of Ely", url: `${civic.url}/`, platform: "civicplus", platformId: new URL(civic.url).host }),
    cand({ kind: "news", name: "The Ely Times", url: `${paper.url}/`, platform: "wordpress" }),
    cand({ kind: "civic", name: "Ely City Council", url: "https://ely.legistar.com/", platform: "legistar", platformId: "ely" }),
    cand({ kind: "news", scope: "county", name: "Great Basin Sun", url: `${county.url}/`, feedUrls: [`${county.url}/feed/`] }),
  ], morningOf(DATES[0]!).toISOString());
  const verified = await verifyTown(server.ctx, ELY);
  expect(verified.candidates.map((c) => [c.name, c.status])).toEqual([
    ["Ely City Council", "verified"], ["City of Ely", "verified"], ["The Ely Times", "verified"], ["Great Basin Sun", "verified"],
  ]);

  for (const [n, date] of DATES.entries()) {
    const now = morningOf(date);
    server.ctx.config.now = () => now;
    if (n > 0) publish(n);
    const s = await runMorning(server.ctx, { now });
    expect([s.composed, s.failed], date).toEqual([1, 0]);
    await drainDueMail(server.ctx);
    const mail = sink.to(READER).find((m) => m.parsed.subject?.startsWith(`Ely, Nov ${Number(date.slice(8))}:`));
    expect(mail, date).toBeDefined();
    digests.set(date, mail!);
  }
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await sink?.stop();
  await meteo?.close();
  await Promise.all([civic, paper, legistar, county].map((s) => s?.close()));
});

// What the edition links to (its links are counted through /go/, tested in link-clicks.test.ts).
const html = (date: string) => untracked(digests.get(date)!.parsed.html as string);
const text = (date: string) => untracked(digests.get(date)!.parsed.text!);
const section = (date: string, title: string) => {
  const h = html(date);
  const at = h.search(new RegExp(`<h2[^>]*>${title}`));
  if (at < 0) return "";
  const next = h.slice(at + 4).search(/<h2[^>]*>/);
  return next < 0 ? h.slice(at) : h.slice(at, at + 4 + next);
};
/** The headline links of a digest (Top story and Local headlines), with their outlet. */
const headlines = (date: string) => [...`${section(date, "Top story")}${section(date, "Local headlines")}${section(date, "More local headlines")}`
  .matchAll(/<a href="([^"]+)"[^>]*>([^<]+)<\/a> \(([^)]+)\)/g)].map((m) => ({ url: m[1]!, title: m[2]!, outlet: m[3]! }));

describe("a week of Ely's mornings from its directory sources", () => {
  it("every morning has local headlines, each credited with its outlet, and none is ever repeated", () => {
    const seen = new Map<string, string>();
    for (const date of DATES) {
      const list = headlines(date);
      expect(list.length, date).toBeGreaterThanOrEqual(3);
      for (const h of list) {
        expect(["City of Ely", "The Ely Times", "Great Basin Sun, county-wide"], `${date}: ${h.title}`).toContain(h.outlet);
        expect(seen.get(h.url), `${h.title} shown on ${seen.get(h.url)} and again on ${date}`).toBeUndefined();
        seen.set(h.url, date);
      }
    }
    // The day's new stories reach that day's edition.
    expect(headlines("2026-11-27").map((h) => h.title)).toEqual(expect.arrayContaining(["Thanksgiving dinner feeds 300 at senior center", "Christmas Tree Recycling Drop-off Opens"]));
  });

  it("the county paper's stories about Ely say they come from a county-wide outlet; those about other towns never appear", () => {
    const all = DATES.flatMap((d) => headlines(d));
    expect(all.filter((h) => h.outlet.startsWith("Great Basin Sun")).length).toBeGreaterThanOrEqual(5);
    for (const d of DATES) {
      expect(html(d)).not.toContain("McGill pool");
      expect(text(d)).not.toContain("McGill pool");
    }
    expect(text("2026-11-26")).toMatch(/Ely planning board hears casino expansion plan, part 3[\s\S]{0,120}\(Great Basin Sun, county-wide\)/);
  });

  it("the council meeting is on the calendar with its time, place and agenda link, from Legistar, credited", () => {
    for (const date of DATES.slice(1)) {
      const cal = section(date, "On the calendar");
      expect(cal, date).toMatch(/<strong>City Council meeting<\/strong>, Tue, Dec 1, 6:00 PM at Council Chambers, 501 Mill St\. From Ely City Council\. <a href="https:\/\/ely\.legistar\.com\/MeetingDetail\.aspx\?LEGID=9001[^"]*"[^>]*>Details<\/a> <a href="https:\/\/ely\.legistar1\.com\/ely\/meetings\/2026\/12\/9001_A_City_Council_26-12-01_Agenda\.pdf"[^>]*>Agenda<\/a>/);
      expect(text(date)).toContain("City Council meeting");
      expect(text(date)).toContain(AGENDA);
    }
    // The CivicPlus calendar's event, its relative URL made absolute.
    expect(section("2026-11-26", "On the calendar")).toMatch(new RegExp(`<a href="${civic.url}/Calendar\\.aspx\\?EID=1451"[^>]*>Details</a>`));
  });

  it("the sources line credits the outlets the edition drew on, with links", () => {
    for (const date of DATES) {
      expect(html(date)).toMatch(new RegExp(`Local news and meetings: .*<a href="${paper.url}/"[^>]*>The Ely Times</a>`));
      expect(html(date)).toMatch(new RegExp(`<a href="${county.url}/"[^>]*>Great Basin Sun</a> \\(county-wide\\)`));
      expect(text(date)).toMatch(/Local news and meetings: /);
    }
    expect(html("2026-11-26")).toMatch(/<a href="https:\/\/ely\.legistar\.com\/"[^>]*>Ely City Council<\/a>/);
  });

  it("the town page's \"Where this comes from\" and /api/city list the sources with links and status", async () => {
    const api = (await (await server.get(`/api/city/${ELY}`)).json()) as { sources: Array<Record<string, unknown>> };
    expect(api.sources.map((s) => [s.name, s.kind, s.countyWide, s.addedBy, s.status])).toEqual([
      ["Ely City Council", "calendar", false, "directory", "ok"],
      ["City of Ely", "news", false, "directory", "ok"], ["City of Ely", "calendar", false, "directory", "ok"], ["City of Ely", "news", false, "directory", "ok"],
      ["The Ely Times", "news", false, "directory", "ok"],
      ["Great Basin Sun", "news", true, "directory", "ok"],
    ]);
    expect(api.sources[0]).toMatchObject({ url: "https://ely.legistar.com/", feedUrl: expect.stringContaining(`${legistar.url}/v1/ely/events`), lastCheckedAt: "2026-11-24T15:00:00.000Z" });
    const page = await (await server.get(`/${ELY}`)).text();
    const where = page.slice(page.indexOf('id="sources-heading"'), page.indexOf("</section>", page.indexOf('id="sources-heading"')));
    expect(where).toContain(">Where this comes from</h2>");
    expect(where).toContain(`<a href="${paper.url}/">The Ely Times</a></strong>: news.`);
    // One line per outlet: the city's news flash, calendar and agendas are one source to a reader.
    expect(where.match(/>City of Ely<\/a>/g)).toHaveLength(1);
    expect(where).toContain(`<a href="${civic.url}/">City of Ely</a></strong>: news, events and meetings.`);
    expect(where).toContain(`<a href="${county.url}/">Great Basin Sun</a></strong>: news, county-wide (only its items that name Ely).`);
    expect(where).toContain(`<a href="https://ely.legistar.com/">Ely City Council</a></strong>: events and meetings.`);
    expect(where).toContain("Found in the open directories of local sources and checked; last checked 2026-11-24.");
    const report = await new HtmlValidate({ extends: ["html-validate:recommended"], rules: { "no-inline-style": "off", "prefer-native-element": ["error", { exclude: ["combobox", "listbox"] }] } }).validateString(page, "town.html");
    expect(report.results.flatMap((r) => r.messages.map((m) => `${m.ruleId}: ${m.message}`))).toEqual([]);
    const twin = await (await server.get(`/${ELY}.md`)).text();
    expect(twin).toContain(`## Where this comes from\n\n- [Ely City Council](https://ely.legistar.com/): events and meetings`);
    expect(twin).toContain(`- [Great Basin Sun](${county.url}/): news, county-wide (only its items that name Ely)`);
  });

  it("reads on a phone: the email and the web edition at 390 px never scroll sideways", async () => {
    const shots = process.env.SCREENSHOT_DIR;
    if (shots) fs.mkdirSync(shots, { recursive: true });
    const browser = await launchChromium();
    try {
      for (const date of ["2026-11-25", "2026-11-30"]) {
        const mail = await browser.newPage({ viewport: { width: 390, height: 900 } });
        await mail.setContent(html(date));
        expect(await mail.evaluate(() => document.documentElement.scrollWidth), `email ${date}`).toBeLessThanOrEqual(390);
        if (shots) await mail.screenshot({ path: path.join(shots, `directory-email-${date}-390.png`), fullPage: true });
        await mail.close();
        const web = await browser.newPage({ viewport: { width: 390, height: 900 } });
        await web.goto(`${server.url}/${ELY}/${date}`);
        expect(await web.evaluate(() => document.documentElement.scrollWidth), `web ${date}`).toBeLessThanOrEqual(390);
        expect(await web.textContent("main")).toContain("City Council meeting");
        if (shots) await web.screenshot({ path: path.join(shots, `directory-web-${date}-390.png`), fullPage: true });
        await web.close();
      }
      const town = await browser.newPage({ viewport: { width: 390, height: 900 } });
      await town.goto(`${server.url}/${ELY}`);
      expect(await town.evaluate(() => document.documentElement.scrollWidth), "town page").toBeLessThanOrEqual(390);
      if (shots) await town.locator("section[aria-labelledby=sources-heading]").screenshot({ path: path.join(shots, "directory-town-sources-390.png") }).catch(() => {});
      if (shots) await town.screenshot({ path: path.join(shots, "directory-town-390.png"), fullPage: true });
      await town.close();
      if (shots) fs.writeFileSync(path.join(shots, "directory-email-2026-11-25.txt"), text("2026-11-25"));
    } finally {
      await browser.close();
    }
  }, 60_000);
});
