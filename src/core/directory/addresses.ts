// The addresses the town directory's datasets record, made absolute and comparable. Pure.

/** A site's home page as an absolute http(s) URL ("www.ely.gov" -> "http://www.ely.gov/"), or null. */
export function homeUrl(raw: string | null | undefined): string | null {
  let s = (raw ?? "").trim();
  if (!s) return null;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(s)) s = `http://${s.replace(/^\/+/, "")}`;
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    return null;
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.username || url.password || !url.hostname.includes(".")) return null;
  url.hash = "";
  return url.href;
}

/**
 * A feed address is a comment feed: WordPress's `/comments/feed` and `?feed=comments-rss2`, Foundation's
 * `Rss.xml?id=comments`, "most commented" lists. ("commentary" is an opinion section, not comments.)
 */
export function isCommentFeed(url: string): boolean {
  return /\/comments\/(feed|rss|atom)\b|[?&]feed=comments-|[?&](id|type)=comments\b|\/comments\.(rss|xml|atom)\b|most-commented/i.test(url);
}

/** Recorded feed addresses, absolute (relative ones resolved against the site), comment feeds dropped, once each. */
export function feedUrls(raw: unknown, site: string): string[] {
  const list = Array.isArray(raw) ? raw : typeof raw === "string" && raw ? [raw] : [];
  const out: string[] = [];
  for (const item of list) {
    if (typeof item !== "string" || !item.trim()) continue;
    let url: URL;
    try {
      url = new URL(item.trim(), site);
    } catch {
      continue;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") continue;
    url.hash = "";
    if (isCommentFeed(url.href) || out.includes(url.href)) continue;
    out.push(url.href);
  }
  return out;
}

/** Two addresses of the same site compare equal: scheme, `www.` and a trailing slash ignored. */
export function siteKey(url: string): string {
  const u = new URL(url);
  return `${u.hostname.replace(/^www\./, "")}${u.pathname.replace(/\/+$/, "")}${u.search}`;
}
