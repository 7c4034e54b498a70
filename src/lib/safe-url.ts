// A link destination taken from outside (a feed, a listing, a calendar): no domain of its own, so the
// feeds' clients, the calendar, the edition and the site's views share it from here. Alone in its file
// so light readers (the site's views) need not load marked and sanitize-html.

/** An http(s) URL safe to put in a link destination, or null. */
export function safeUrl(raw: string | null | undefined): string | null {
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  // URL.href already percent-encodes spaces, quotes and angle brackets; parentheses would end the destination.
  return url.href.replace(/[()]/g, (c) => (c === "(" ? "%28" : "%29"));
}
