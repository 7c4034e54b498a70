import type { CalendarOccurrence } from "../../core/calendar/calendar-events.ts";
import { itemsNamingTown } from "../../core/sources/county-filter.ts";
import type { StoredHeadline } from "../../integrations/feeds/syndication.ts";
import type { CandidateRow } from "../../store/directory/candidates.ts";
import type { PlaceRow } from "../../store/places/places.ts";
import type { FeedSourceRow } from "../../store/sources/feeds.ts";
import { parseFeedBody, type ParsedFeed } from "../sources/feeds.ts";

// Whether a feed a directory candidate gave is current enough to be a source of the town: a headline
// of the last few weeks, or a calendar with something coming.

/** A headline feed is current when an item is at most this old. */
export const FRESH_MS = 21 * 86_400_000;

export const hasItems = (p: ParsedFeed) => p.items.length > 0;

/** A source's stored items after a 304 (a calendar's text expanded again over today's window). */
export function storedFeed(known: FeedSourceRow, now: Date): ParsedFeed {
  if (known.kind === "ical" && known.body) return parseFeedBody(known.body, known.url, now);
  let items: unknown;
  try {
    items = JSON.parse(known.items_json);
  } catch {
    items = [];
  }
  return { kind: known.kind, title: known.title, items: Array.isArray(items) ? items : [] };
}

/** Whether a parsed feed is current at `now`, and what to say about it. */
export function freshness(parsed: ParsedFeed, now: Date, place: PlaceRow, scope: CandidateRow["scope"]): { fresh: boolean; detail: string } {
  if (parsed.kind === "ical") {
    const n = (parsed.items as CalendarOccurrence[]).length;
    return n > 0 ? { fresh: true, detail: `a calendar with ${n} event(s) in the coming two weeks` } : { fresh: false, detail: "a calendar with nothing in the coming two weeks" };
  }
  const items = parsed.items as StoredHeadline[];
  const dated = items.map((h) => h.publishedAt).filter((d): d is string => Boolean(d) && Date.parse(d!) <= now.getTime() + 86_400_000).sort();
  const newest = dated.at(-1);
  if (!newest) return { fresh: false, detail: `${items.length} item(s), none dated` };
  const recent = dated.filter((d) => now.getTime() - Date.parse(d) <= FRESH_MS).length;
  if (recent === 0) return { fresh: false, detail: `newest item ${newest.slice(0, 10)}, older than ${FRESH_MS / 86_400_000} days` };
  const naming = scope === "county" ? `; ${itemsNamingTown(items, place.name).length} name ${place.name}` : "";
  return { fresh: true, detail: `${items.length} item(s), ${recent} from the last ${FRESH_MS / 86_400_000} days, newest ${newest.slice(0, 10)}${naming}` };
}
