import { xml, XML_DECLARATION } from "./xml.ts";

// RSS 2.0 (https://www.rssboard.org/rss-specification) with the content and atom namespaces:
// full edition HTML in content:encoded, a plain-text synopsis in description, atom:link rel=self.

export interface RssChannel {
  title: string;
  /** The HTML page the feed stands for. */
  link: string;
  /** Where this feed itself is served (atom:link rel="self"). */
  selfUrl: string;
  description: string;
}

export interface RssItem {
  title: string;
  link: string;
  /** ISO instant. */
  publishedAt: string;
  html: string;
  category?: string;
}

/** RFC 822 date-time (RSS 2.0 pubDate), in GMT: "Sun, 22 Nov 2026 11:00:00 GMT". */
export function rfc822(iso: string): string {
  return new Date(iso).toUTCString();
}

/** Root-relative href/src in edition HTML made absolute: feed readers have no page URL to resolve them against. */
export function absolutizeHtml(html: string, base: string): string {
  return html.replace(/(\s(?:href|src)=)(["'])\/(?!\/)/gi, `$1$2${base}/`);
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** A short plain-text synopsis of edition HTML: the h1 (the item title says it) and tags dropped. */
export function synopsis(html: string, max = 280): string {
  // The opening of the edition is enough text for a synopsis: cut before the regexes run. A short
  // cut first (every feed of every morning makes thousands of these); the long one when the opening
  // is mostly markup. Text well past `max` is cut off below, so a tag cut in half there never shows.
  let text = plainOpening(html, 3 * max + 512);
  if (text.length < max + 64 && html.length > 3 * max + 512) text = plainOpening(html, 8 * max + 2048);
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(" "), max / 2)).trimEnd()}…`;
}

function plainOpening(html: string, chars: number): string {
  return html.slice(0, chars)
    .replace(/<h1[^>]*>[\s\S]*?<\/h1>/gi, " ")
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
      if (e[0] === "#") {
        const code = e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : " ";
      }
      return ENTITIES[e.toLowerCase()] ?? m;
    })
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * The version of `rssItemXml`'s output. A morning keeps the items of a city's live feed for editions it
 * already carried (`feedItemsByLink`) when the live site was built with the same version: bump it
 * whenever an item's XML changes, so the next morning renders every item again.
 */
export const FEED_ITEM_FORMAT = 1;

/** A feed item ready to write: its XML (as text, or as the bytes a kept feed holds), and its instant (the channel's dates follow the newest). */
export interface RenderedItem {
  publishedAt: string;
  xml: string | Uint8Array;
}

/** One item's XML, exactly as the feed carries it. */
export function rssItemXml(i: RssItem, base: string): string {
  return [
    "<item>",
    `<title>${xml(i.title)}</title>`,
    `<link>${xml(i.link)}</link>`,
    `<guid isPermaLink="true">${xml(i.link)}</guid>`,
    `<pubDate>${rfc822(i.publishedAt)}</pubDate>`,
    ...(i.category ? [`<category>${xml(i.category)}</category>`] : []),
    `<description>${xml(synopsis(i.html))}</description>`,
    `<content:encoded>${xml(absolutizeHtml(i.html, base))}</content:encoded>`,
    "</item>",
  ].join("\n");
}

const ITEM_START = Buffer.from("\n<item>\n");
const ITEM_END = Buffer.from("\n</item>");
const LINK_START = Buffer.from("\n<link>");
const LINK_END = Buffer.from("</link>");

/**
 * The items of a feed `renderFeed` wrote, by their `<link>` (as escaped in the XML), each a view of the
 * feed's bytes: a morning carries a city's kept items into its new feed without decoding and encoding
 * them again (about 50 KB each way a feed, thousands of feeds). Escaped content never holds a literal
 * `<item>` or `</item>`, so the items split cleanly.
 */
export function feedItemsByLink(feed: Buffer): Map<string, Buffer> {
  const items = new Map<string, Buffer>();
  for (let at = feed.indexOf(ITEM_START); at >= 0; at = feed.indexOf(ITEM_START, at)) {
    const end = feed.indexOf(ITEM_END, at);
    if (end < 0) break;
    // The title comes first and is escaped, so the item's first "<link>" line is its own.
    const linkAt = feed.indexOf(LINK_START, at);
    const linkEnd = linkAt >= 0 && linkAt < end ? feed.indexOf(LINK_END, linkAt) : -1;
    if (linkEnd >= 0 && linkEnd < end) items.set(feed.toString("utf8", linkAt + LINK_START.length, linkEnd), feed.subarray(at + 1, end + ITEM_END.length));
    at = end;
  }
  return items;
}

/** The feed document. `lastBuildDate` is the newest item's date, so an unchanged feed is byte-identical. */
export function renderRss(channel: RssChannel, items: readonly RssItem[], base: string, now: Date): string {
  return renderFeed(channel, items.map((i) => ({ publishedAt: i.publishedAt, xml: rssItemXml(i, base) })), now);
}

/** The same from items already rendered (some of them kept from the feed's previous version). */
export function renderFeed(channel: RssChannel, items: readonly RenderedItem[], now: Date): string {
  return renderFeedBytes(channel, items, now).toString();
}

const NEWLINE = Buffer.from("\n");
const FEED_END = Buffer.from("</channel>\n</rss>\n");

/** `renderFeed` as the bytes to write: kept items go in as they are. */
export function renderFeedBytes(channel: RssChannel, items: readonly RenderedItem[], now: Date): Buffer {
  const newest = items.reduce<string | undefined>((m, i) => (m === undefined || i.publishedAt > m ? i.publishedAt : m), undefined);
  const built = rfc822(newest ?? now.toISOString());
  const parts: Uint8Array[] = [Buffer.from([
    XML_DECLARATION,
    '<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:content="http://purl.org/rss/1.0/modules/content/">',
    "<channel>",
    `<title>${xml(channel.title)}</title>`,
    `<link>${xml(channel.link)}</link>`,
    `<description>${xml(channel.description)}</description>`,
    "<language>en-us</language>",
    `<lastBuildDate>${built}</lastBuildDate>`,
    `<pubDate>${built}</pubDate>`,
    "<docs>https://www.rssboard.org/rss-specification</docs>",
    "<generator>citydaily</generator>",
    "<ttl>60</ttl>",
    `<atom:link href="${xml(channel.selfUrl)}" rel="self" type="application/rss+xml"/>`,
    "",
  ].join("\n"))];
  for (const i of items) parts.push(typeof i.xml === "string" ? Buffer.from(i.xml) : i.xml, NEWLINE);
  parts.push(FEED_END);
  return Buffer.concat(parts);
}
