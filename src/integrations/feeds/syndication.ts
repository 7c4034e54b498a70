import { parseFeed } from "feedsmith";
import { safeUrl } from "../../lib/safe-url.ts";
import type { Headline } from "../../core/sources/town-sources.ts";
import { SourceError } from "../http-json.ts";
import { plainText } from "./ical.ts";

// RSS 2.0, Atom 1.0 (and RSS 1.0/RDF, JSON Feed, which feedsmith reads too) into headlines: the
// title as plain text and a link, never the article's text. Items without an http(s) link are dropped.

export type SyndicationKind = "rss" | "atom" | "rdf" | "json";

/** A headline as stored with its feed (the outlet is the feed's title, added when it is handed out). */
export type StoredHeadline = Omit<Headline, "outlet">;

export interface ParsedSyndication {
  kind: SyndicationKind;
  title: string | null;
  /** Newest first; at most 100. */
  items: StoredHeadline[];
}

const MAX_ITEMS = 100;

type Text = string | { value?: string; type?: string } | undefined;
/** Atom says how its text is written: `text` is taken as is, `html` and `xhtml` are made plain. */
const atomText = (t: Text, max: number) => {
  if (typeof t === "string" || !t?.type || t.type === "text") {
    const value = typeof t === "string" ? t : t?.value;
    return (value ?? "").replace(/\s+/g, " ").trim().slice(0, max);
  }
  return plainText(t.value, max);
};
const iso = (value: unknown): string | null => {
  if (typeof value !== "string") return null;
  const t = Date.parse(value);
  return Number.isFinite(t) ? new Date(t).toISOString() : null;
};

export function parseSyndication(text: string, base?: string): ParsedSyndication {
  let parsed: ReturnType<typeof parseFeed>;
  try {
    parsed = parseFeed(text);
  } catch (err) {
    throw new SourceError("invalid", `not an RSS or Atom feed: ${(err as Error).message}`);
  }
  const resolve = (href: unknown) => {
    if (typeof href !== "string" || !href.trim()) return null;
    try {
      return safeUrl(new URL(href.trim(), base).href);
    } catch {
      return null;
    }
  };
  const items: StoredHeadline[] = [];
  const isAtom = parsed.format === "atom";
  let title: string | null;
  const add = (key: unknown, rawTitle: unknown, link: string | null, published: unknown) => {
    const t = typeof rawTitle === "string" && isAtom ? rawTitle : plainText(rawTitle, 300);
    if (!t || !link) return;
    items.push({ key: typeof key === "string" && key.trim() ? key.trim().slice(0, 500) : link, title: t, url: link, publishedAt: iso(published) });
  };
  switch (parsed.format) {
    case "rss": {
      const f = parsed.feed;
      title = plainText(f.title, 200) || null;
      for (const i of f.items ?? []) add(i.guid?.value ?? i.link, i.title, resolve(i.link ?? (i.guid?.isPermaLink !== false ? i.guid?.value : undefined)), i.pubDate ?? i.dc?.dates?.[0]);
      break;
    }
    case "atom": {
      const f = parsed.feed;
      title = atomText(f.title as Text, 200) || null;
      for (const e of f.entries ?? []) {
        const link = (e.links ?? []).find((l) => !l.rel || l.rel === "alternate") ?? e.links?.[0];
        add(e.id, atomText(e.title as Text, 300), resolve(link?.href), e.published ?? e.updated);
      }
      break;
    }
    case "rdf": {
      const f = parsed.feed;
      title = plainText(f.title, 200) || null;
      for (const i of f.items ?? []) add(i.link, i.title, resolve(i.link), i.dc?.dates?.[0]);
      break;
    }
    case "json": {
      const f = parsed.feed;
      title = plainText(f.title, 200) || null;
      for (const i of f.items ?? []) add(i.id, i.title, resolve(i.url ?? i.external_url), i.date_published ?? i.date_modified);
      break;
    }
    default:
      throw new SourceError("invalid", "not an RSS or Atom feed");
  }
  // Newest first; undated items keep the feed's own order after the dated ones.
  const order = new Map(items.map((h, i) => [h, i]));
  items.sort((a, b) => (b.publishedAt ?? "").localeCompare(a.publishedAt ?? "") || order.get(a)! - order.get(b)!);
  const seen = new Set<string>();
  return { kind: parsed.format, title, items: items.filter((h) => !seen.has(h.key) && (seen.add(h.key), true)).slice(0, MAX_ITEMS) };
}
