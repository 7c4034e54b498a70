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

/** A feed item ready to write: its XML, and its instant (the channel's dates follow the newest). */
export interface RenderedItem {
  publishedAt: string;
  xml: string;
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

/**
 * The items of a feed `renderFeed` wrote, by their `<link>` (as escaped in the XML). Escaped content
 * never holds a literal `<item>` or `</item>`, so the items split cleanly.
 */
export function feedItemsByLink(feed: string): Map<string, string> {
  const items = new Map<string, string>();
  for (let at = feed.indexOf("\n<item>\n"); at >= 0; at = feed.indexOf("\n<item>\n", at)) {
    const end = feed.indexOf("\n</item>", at);
    if (end < 0) break;
    const item = feed.slice(at + 1, end + "\n</item>".length);
    const link = /^<link>([^<]*)<\/link>$/m.exec(item)?.[1];
    if (link !== undefined) items.set(link, item);
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
  const newest = items.reduce<string | undefined>((m, i) => (m === undefined || i.publishedAt > m ? i.publishedAt : m), undefined);
  const built = rfc822(newest ?? now.toISOString());
  return [
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
    ...items.map((i) => i.xml),
    "</channel>", "</rss>", "",
  ].join("\n");
}
