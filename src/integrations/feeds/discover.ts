import { Parser } from "htmlparser2";
import robotsParserModule from "robots-parser";
import { safeUrl } from "../../lib/safe-url.ts";

// Finding a site's feeds: the `<link rel="alternate">` elements of its home page (RSS, Atom, JSON
// Feed, iCalendar), read with htmlparser2 (the parser sanitize-html uses), and the platforms'
// conventions (CivicPlus, WordPress). robots.txt is read with robots-parser.

export type DiscoveredType = "rss" | "atom" | "json" | "ical";

export interface DiscoveredFeed {
  url: string;
  type: DiscoveredType;
  title: string | null;
}

const TYPES: Record<string, DiscoveredType> = {
  "application/rss+xml": "rss",
  "application/atom+xml": "atom",
  "application/feed+json": "json",
  "application/json": "json",
  "text/calendar": "ical",
};

/** Comment feeds (WordPress's `/comments/feed/`, a post's `/feed/` of replies) are conversation, not news. */
export function isCommentFeed(url: string, title?: string | null): boolean {
  return /\/comments\/feed\/?$|[?&]feed=comments-rss2?|\/feed\/comments|\/comments\.(rss|xml|atom)$/i.test(url) || /\bcomments?\b/i.test(title ?? "");
}

/** The feeds a page announces, in page order, resolved against its address (or its `<base href>`); comment feeds dropped. */
export function feedLinksOf(html: string, pageUrl: string): DiscoveredFeed[] {
  let base = pageUrl;
  const found: DiscoveredFeed[] = [];
  const seen = new Set<string>();
  const parser = new Parser({
    onopentag(name, attrs) {
      if (name === "base" && attrs.href) {
        try {
          base = new URL(attrs.href, pageUrl).href;
        } catch {
          // an unreadable <base> is ignored
        }
        return;
      }
      if (name !== "link" || !attrs.href) return;
      const rel = (attrs.rel ?? "").toLowerCase().split(/\s+/);
      const type = TYPES[(attrs.type ?? "").toLowerCase().split(";")[0]!.trim()];
      if (!rel.includes("alternate") || !type) return;
      let url: string | null;
      try {
        url = safeUrl(new URL(attrs.href.trim(), base).href);
      } catch {
        url = null;
      }
      const title = attrs.title?.trim() || null;
      if (!url || seen.has(url) || isCommentFeed(url, title)) return;
      seen.add(url);
      found.push({ url, type, title });
    },
  }, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true });
  parser.write(html);
  parser.end();
  return found;
}

/** CivicPlus sites' standard feeds: News Flash (RSS), the main calendar (iCalendar) and the Agenda Center (RSS). */
export function civicPlusFeeds(site: string): string[] {
  const origin = new URL(site).origin;
  return [
    `${origin}/RSSFeed.aspx?ModID=1&CID=All-newsflash.xml`,
    `${origin}/common/modules/iCalendar/iCalendar.aspx?catID=14&feed=calendar`,
    `${origin}/RSSFeed.aspx?ModID=65&CID=All-0`,
  ];
}

/** WordPress's main feed: `/feed/` under the site's address. */
export function wordPressFeed(site: string): string {
  const url = new URL(site);
  url.search = "";
  url.hash = "";
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return new URL("feed/", url).href;
}

// robots-parser is CommonJS (`module.exports = function`): its typings describe an ES default export.
const robotsParser = robotsParserModule as unknown as (url: string, text: string) => { isAllowed(url: string, ua?: string): boolean | undefined };

/** Our product token in robots.txt groups (`User-agent: citydaily`). */
export const ROBOTS_AGENT = "citydaily";

/**
 * Whether robots.txt lets us fetch `url`. `robotsTxt` is the file's text, `null` when the site has none
 * (4xx: everything allowed), `undefined` when it could not be read (5xx, unreachable: nothing allowed, RFC 9309 §2.3.1.4).
 */
export function robotsAllow(url: string, robotsTxt: string | null | undefined): boolean {
  if (robotsTxt === null) return true;
  if (robotsTxt === undefined) return false;
  const origin = new URL(url).origin;
  return robotsParser(`${origin}/robots.txt`, robotsTxt).isAllowed(url, ROBOTS_AGENT) !== false;
}
