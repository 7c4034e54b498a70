import { createHash } from "node:crypto";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { marked, type Token, type Tokens } from "marked";
import { describe, expect, it } from "vitest";
import { llmsTxt } from "../../src/publish/llms.ts";
import { cityMarkdown, feedMarkdown } from "../../src/publish/markdown-pages.ts";
import { statesPhrase } from "../../src/contract/states.ts";
import { demoteHeadings, frontMatter, md, mdLink, startsWithH1 } from "../../src/publish/markdown-text.ts";
import { absolutizeHtml, FEED_ITEM_FORMAT, feedItemsByLink, renderFeed, renderFeedBytes, renderRss, rfc822, rssItemXml, synopsis } from "../../src/publish/rss.ts";
import { childFile, partCount, renderSitemapIndex, renderUrlset, splitUrls, w3cDate } from "../../src/publish/sitemap.ts";
import { xml } from "../../src/publish/xml.ts";
import { censusFigures } from "../../src/core/places/census-figures.ts";
import type { CityView, PlacedEdition } from "../../src/site/views.ts";
import type { PlaceRow } from "../../src/store/places/places.ts";

// The pure renderers of the text outputs, each checked by reading its output back with an
// independent parser (fast-xml-parser, marked's lexer) rather than by comparing strings.

const BASE = "https://citydaily.example";
const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@_", isArray: (n) => ["item", "url", "sitemap"].includes(n), parseTagValue: false, trimValues: false });

function inlineTokens(markdown: string): Token[] {
  const tokens = marked.lexer(markdown);
  expect(tokens.filter((t) => t.type !== "space")).toHaveLength(1);
  expect(tokens[0].type).toBe("paragraph");
  return (tokens[0] as Tokens.Paragraph).tokens;
}

describe("xml", () => {
  it("escapes markup and drops what XML 1.0 cannot carry", () => {
    const nasty = `a & b <c> "d" 'e' ]]> \u0000\u0008\u001f\ufffe tab\tend \ud800 lone`;
    const doc = `<r a="${xml(nasty)}">${xml(nasty)}</r>`;
    expect(XMLValidator.validate(doc)).toBe(true);
    const r = parser.parse(doc).r;
    const expected = `a & b <c> "d" 'e' ]]>  tab\tend \ufffd lone`;
    expect(r["#text"]).toBe(expected);
    expect(r["@_a"]).toBe(expected);
  });
});

describe("rss", () => {
  it("formats pubDate as RFC 822 in GMT", () => {
    expect(rfc822("2026-11-22T11:05:09.000Z")).toBe("Sun, 22 Nov 2026 11:05:09 GMT");
  });

  it("makes root-relative links absolute and leaves others alone", () => {
    expect(absolutizeHtml(`<a href="/x">x</a> <img src='/i.png'> <a href="//cdn/x">c</a> <a href="https://o/x">o</a>`, BASE))
      .toBe(`<a href="${BASE}/x">x</a> <img src='${BASE}/i.png'> <a href="//cdn/x">c</a> <a href="https://o/x">o</a>`);
  });

  it("writes a synopsis from the text after the title, cut at a word", () => {
    expect(synopsis("<h1>Title</h1><p>Sunny &amp; mild, 54&#176;.</p><script>x()</script>")).toBe("Sunny & mild, 54°.");
    const long = synopsis(`<p>${"word ".repeat(200)}</p>`, 50);
    expect(long.length).toBeLessThanOrEqual(50);
    expect(long.endsWith("word…")).toBe(true);
  });

  it("an empty feed is still a valid channel, built now", () => {
    const text = renderRss({ title: "t", link: `${BASE}/`, selfUrl: `${BASE}/feed.xml`, description: "d" }, [], BASE, new Date("2026-11-22T15:00:00Z"));
    expect(XMLValidator.validate(text)).toBe(true);
    const ch = parser.parse(text).rss.channel;
    expect(ch.lastBuildDate).toBe("Sun, 22 Nov 2026 15:00:00 GMT");
    expect(ch.item).toBeUndefined();
  });

  it("carries the edition HTML intact in content:encoded", () => {
    const html = `<h1>T</h1><p>a &amp; b <a href="/x">]]></a></p>`;
    const text = renderRss({ title: "t", link: `${BASE}/`, selfUrl: `${BASE}/feed.xml`, description: "d" },
      [{ title: "<b>x</b>", link: `${BASE}/a/2026-11-22`, publishedAt: "2026-11-22T11:00:00Z", html }], BASE, new Date());
    const item = parser.parse(text).rss.channel.item[0];
    expect(item.title).toBe("<b>x</b>");
    expect(item["content:encoded"]).toBe(absolutizeHtml(html, BASE));
  });

  it("finds each item of a feed it wrote by its link, so a later feed can carry it unchanged", () => {
    const channel = { title: "t", link: `${BASE}/`, selfUrl: `${BASE}/feed.xml`, description: "d" };
    const items = ["2026-11-22", "2026-11-21", "2026-11-20"].map((date) => ({
      title: `Española & co — ${date}`, link: `${BASE}/ely-nevada/${date}`, publishedAt: `${date}T11:00:00Z`,
      html: `<h1>x</h1><p>An &lt;item&gt; inside </item> text, café ☕</p>\n<item>\n<link>x</link>\n`, category: "Ely, Nevada",
    }));
    const feed = renderRss(channel, items, BASE, new Date());
    const found = feedItemsByLink(Buffer.from(feed));
    expect([...found.keys()]).toEqual(items.map((i) => xml(i.link)));
    // Kept items are views of the old feed's bytes (multi-byte text included), spliced in unchanged.
    const kept = items.map((i) => ({ publishedAt: i.publishedAt, xml: found.get(xml(i.link))! }));
    expect(renderFeed(channel, kept, new Date())).toBe(feed);
    expect(renderFeedBytes(channel, [kept[0], { publishedAt: items[1].publishedAt, xml: rssItemXml(items[1], BASE) }, kept[2]], new Date()).equals(Buffer.from(feed))).toBe(true);
    expect(feedItemsByLink(Buffer.from(renderRss(channel, [], BASE, new Date()))).size).toBe(0);
  });

  it("names the item format it writes: an item's XML changes only with FEED_ITEM_FORMAT", () => {
    // Mornings keep the items of live feeds written in the same format. When this fails, the XML of an
    // item changed: bump FEED_ITEM_FORMAT (src/publish/rss.ts), then record the new digest here.
    const item = rssItemXml({ title: "Ely, Nov 22: Snow", link: `${BASE}/ely-nevada/2026-11-22`, publishedAt: "2026-11-22T11:00:00Z", html: `<h1>Ely</h1><p>Snow &amp; wind, <a href="/ely-nevada">more</a>.</p>`, category: "Ely, Nevada" }, BASE);
    expect({ format: FEED_ITEM_FORMAT, digest: createHash("sha256").update(item).digest("hex").slice(0, 16) }).toEqual({ format: 1, digest: "547121825bab4312" });
  });
});

describe("sitemap", () => {
  it("splits a child into parts of at most maxUrls, keeping the first part's name", () => {
    expect(splitUrls([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(splitUrls([], 2)).toEqual([[]]);
    expect(partCount(5, 2)).toBe(3);
    expect(partCount(0, 2)).toBe(1);
    expect([1, 2, 3].map((n) => childFile("editions-2026-11-22", n))).toEqual(["editions-2026-11-22.xml", "editions-2026-11-22.2.xml", "editions-2026-11-22.3.xml"]);
  });

  it("renders a urlset and an index in the sitemap namespace with W3C dates", () => {
    const set = parser.parse(renderUrlset([{ loc: `${BASE}/a?x=1&y=2`, lastmod: "2026-11-22T11:00:00.123Z" }, { loc: `${BASE}/b` }])).urlset;
    expect(set["@_xmlns"]).toBe("http://www.sitemaps.org/schemas/sitemap/0.9");
    expect(set.url).toEqual([{ loc: `${BASE}/a?x=1&y=2`, lastmod: "2026-11-22T11:00:00Z" }, { loc: `${BASE}/b` }]);
    const index = parser.parse(renderSitemapIndex([{ loc: `${BASE}/sitemaps/pages.xml`, lastmod: "2026-11-22T11:00:00Z" }])).sitemapindex;
    expect(index.sitemap).toEqual([{ loc: `${BASE}/sitemaps/pages.xml`, lastmod: "2026-11-22T11:00:00Z" }]);
    expect(w3cDate("2026-01-02T03:04:05.678Z")).toBe("2026-01-02T03:04:05Z");
  });

  it("refuses to write a child over the byte limit", () => {
    expect(() => renderUrlset([{ loc: `${BASE}/${"a".repeat(200)}` }], 150)).toThrow(/exceeds/);
  });
});

describe("markdown text", () => {
  const hostile = "Evil ](javascript:alert(1)) <img src=x onerror=y> **b** `c` | # [x](http://e.example) &amp; \n# heading\n- item";

  it("data text stays text: no link, image, HTML, emphasis or code comes out of it", () => {
    const tokens = inlineTokens(`- ${md(hostile)}`.slice(2));
    expect(tokens.every((t) => t.type === "text" || t.type === "escape")).toBe(true);
    const link = inlineTokens(mdLink(hostile, `${BASE}/x.md`));
    expect(link).toHaveLength(1);
    expect((link[0] as Tokens.Link).href).toBe(`${BASE}/x.md`);
  });

  it("a list item that starts with a number does not become an ordered list", () => {
    const list = marked.lexer(`- ${md("1. Main Street")}`)[0] as Tokens.List;
    expect(list.items[0].tokens.some((t) => t.type === "list")).toBe(false);
  });

  it("front matter keeps every value on one line, whatever it contains", () => {
    const text = frontMatter({ title: 'a "quoted"\n---\nevil: true', n: 3, skipped: undefined });
    expect(text.split("\n")).toEqual(["---", 'title: "a \\"quoted\\"\\n---\\nevil: true"', "n: 3", "---", ""]);
  });

  it("demotes ATX headings outside code fences, capped at h6", () => {
    const src = "# One\n\n## Two\n\n```\n# code\n```\n\n~~~~\n## also code\n~~~~\n###### Six\n#hashtag";
    expect(demoteHeadings(src, 2)).toBe("### One\n\n#### Two\n\n```\n# code\n```\n\n~~~~\n## also code\n~~~~\n###### Six\n#hashtag");
    expect(startsWithH1("\n\n# Title\n")).toBe(true);
    expect(startsWithH1("## Sub\n# Title")).toBe(false);
  });
});

describe("pages", () => {
  const city = {
    geoid: "0000001", slug: "testville-ohio", name: "Testville", census_name: "Testville city", place_type: "city",
    state_name: "Ohio", state_code: "OH", county_name: "Test County", latitude: 40, longitude: -82, timezone: "America/New_York",
    population: 12345, housing_units: null, acs_year: "2023", median_income: 61000, median_home_value: null, median_rent: null,
    owner_occupied: null, renter_occupied: null, college_degree_percent: null, avg_commute_minutes: null, work_from_home_percent: null,
    walk_bike_transit_percent: null, median_age: null, over65_percent: null, vacancy_rate: null, acs_detail_year: null, land_area_sq_mi: 4.2,
  } satisfies PlaceRow;
  const view: CityView = {
    place: { slug: city.slug, name: city.name, state: city.state_name, stateSlug: "ohio", county: city.county_name, placeType: city.place_type, timezone: city.timezone, population: city.population, latitude: city.latitude, longitude: city.longitude },
    latest: { date: "2026-11-22", subject: "Testville, Nov 22: sunny", html: "<p>Hello.</p>", markdown: "# Testville Daily\n\nHello.", publishedAt: "2026-11-22T11:00:00.000Z", today: null, forecast: [] },
    archive: [{ date: "2026-11-22", subject: "Testville, Nov 22: sunny" }],
    archiveTotal: 2,
    census: censusFigures(city),
    censusYear: city.acs_year,
    comparison: [],
    events: [],
    directory: [],
  };

  it("the census table shows the figures there are, and never says what has not been imported (which tells a reader nothing)", () => {
    const text = cityMarkdown(BASE, view);
    const table = marked.lexer(text).find((t) => t.type === "table") as Tokens.Table;
    const rows = Object.fromEntries(table.rows.map((r) => [r[0].text, r[1].text]));
    expect(rows.Population).toBe("12,345");
    expect(rows["Median household income"]).toBe("$61,000");
    expect(rows["Land area"]).toBe("4.2 sq mi");
    expect(rows).not.toHaveProperty("Housing units");
    expect(rows).not.toHaveProperty("Median age");
    expect(text).not.toMatch(/imported|not available/i);
    // The embedded edition sits under "Latest edition"; older dates are pointed to.
    expect(text).toContain("### Testville Daily");
    expect(text).toContain(`${BASE}/api/city/testville-ohio`);
  });

  it("llms.txt keeps its shape with no cities yet", () => {
    const tokens = marked.lexer(llmsTxt(BASE, { states: [], cityCount: 0, editionCount: 0, latestDate: undefined }));
    expect(tokens[0]).toMatchObject({ type: "heading", depth: 1 });
    expect(tokens.filter((t) => t.type === "heading" && (t as Tokens.Heading).depth === 2).map((t) => (t as Tokens.Heading).text)).toEqual(["Start here", "Feeds", "Optional"]);
  });
});

describe("what the text outputs count and order", () => {
  const edition = (slug: string, date: string, publishedAt: string) => ({
    id: 1, slug, name: slug, state_name: "Idaho", date, subject: `${slug} ${date}`, markdown: "", html: "", published_at: publishedAt,
  }) as unknown as PlacedEdition;

  it("lists feed.md newest edition first, even when an older day was published later", () => {
    const text = feedMarkdown(BASE, [
      edition("boise-idaho", "2026-11-20", "2026-11-23T09:00:00Z"), // a past morning, published late
      edition("nampa-idaho", "2026-11-22", "2026-11-22T13:00:00Z"),
      edition("eagle-idaho", "2026-11-21", "2026-11-21T13:00:00Z"),
    ]);
    const dates = [...text.matchAll(/^- (\d{4}-\d{2}-\d{2}) ·/gm)].map((m) => m[1]);
    expect(dates).toEqual(["2026-11-22", "2026-11-21", "2026-11-20"]);
  });

  it("never counts D.C. or Puerto Rico as states", () => {
    expect(statesPhrase(["Idaho", "District of Columbia", "Puerto Rico", "Ohio"])).toBe("2 states, D.C. and Puerto Rico");
    expect(statesPhrase(["Idaho"])).toBe("1 state");
    expect(statesPhrase(["Puerto Rico"])).toBe("Puerto Rico");
    const llms = llmsTxt(BASE, { states: ["Idaho", "District of Columbia", "Puerto Rico"].map((name) => ({ name, slug: name, cities: 1 })), cityCount: 3, editionCount: 3, latestDate: "2026-11-22" });
    expect(llms).toContain("3 cities in 1 state, D.C. and Puerto Rico have");
    expect(llms).not.toMatch(/3 states/);
  });
});
