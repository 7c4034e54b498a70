import type { TownFeed } from "../../contract/feeds.ts";
import { AppError } from "../../core/errors.ts";
import { checkFeedUrl } from "../../integrations/feeds/fetch.ts";
import type { CalendarOccurrence } from "../../core/calendar/calendar-events.ts";
import { looksLikeCalendar, parseCalendar } from "../../integrations/feeds/ical.ts";
import { looksLikeLegistarEvents, parseLegistarEvents } from "../../integrations/feeds/legistar.ts";
import { parseSyndication, type StoredHeadline } from "../../integrations/feeds/syndication.ts";
import { SourceError } from "../../integrations/http-json.ts";
import { deleteTownFeed, insertTownFeed, listTownFeeds, townFeedByUrl, type FeedKind, type TownFeedView } from "../../store/sources/feeds.ts";
import { addRemoval } from "../../store/directory/sources.ts";
import { requireTown } from "../places/cities.ts";
import type { AppContext } from "../platform/context.ts";

// A town's feeds as data with an owner: staff (admin endpoints, CLI) and the town's operator (the
// desk) add and remove them through these functions. Adding fetches the address once and stores
// nothing unless it is a public calendar or feed that parses.

/** Who adds a feed: `staff`, or the operator's email. */
export type FeedOwner = "staff" | (string & {});

/** Calendar occurrences are kept for this window around the fetch: the past day (a feed failing tomorrow still has today) and the weeks ahead. */
const CALENDAR_BEHIND_MS = 86_400_000;
const CALENDAR_AHEAD_MS = 16 * 86_400_000;

/** A fetched body, parsed: what kind it is, its title and the items to keep. */
export interface ParsedFeed {
  kind: FeedKind;
  title: string | null;
  items: CalendarOccurrence[] | StoredHeadline[];
}

/** Parses a fetched body as a calendar or a feed; throws SourceError("invalid") for anything else. */
export function parseFeedBody(body: string, url: string, now: Date): ParsedFeed {
  const window = { from: new Date(now.getTime() - CALENDAR_BEHIND_MS), to: new Date(now.getTime() + CALENDAR_AHEAD_MS) };
  if (looksLikeCalendar(body)) {
    const cal = parseCalendar(body, window, url);
    return { kind: "ical", title: cal.title, items: cal.occurrences };
  }
  // Legistar's events API: a calendar of meetings (stored as kind `ical`, a calendar, with its body kept the same way).
  if (looksLikeLegistarEvents(body)) return { kind: "ical", title: null, items: parseLegistarEvents(body, window) };
  const feed = parseSyndication(body, url);
  return { kind: feed.kind, title: feed.title, items: feed.items };
}

/** The problem a person sees for a feed that was refused. */
export function feedProblem(err: SourceError, maxBytes: number): AppError {
  switch (err.kind) {
    case "refused":
      return new AppError("feed_address_refused", `That address cannot be fetched: ${err.message}.`);
    case "too_large":
      return new AppError("feed_too_large", `The feed is larger than ${Math.round(maxBytes / 1024)} KB (${err.message}).`);
    case "invalid":
      return new AppError("feed_unreadable", `The address answered, but not with an iCalendar calendar or an RSS/Atom feed (${err.message}).`);
    default:
      return new AppError("feed_unreachable", `The feed could not be fetched: ${err.message}.`);
  }
}

export function townFeedOf(row: TownFeedView): TownFeed {
  return {
    id: row.id,
    town: { slug: row.slug, name: row.town_name, state: row.state_name },
    url: row.url,
    kind: row.kind,
    title: row.title,
    addedBy: row.added_by,
    createdAt: row.created_at,
    lastFetchedAt: row.checked_at,
    status: row.status,
    lastError: row.last_error,
    consecutiveFailures: row.consecutive_failures,
    itemsFetchedAt: row.items_fetched_at,
    itemCount: row.item_count,
    ...(row.added_by === "directory" ? { scope: row.scope, homeUrl: row.home_url, verifiedAt: row.verified_at } : {}),
    ...(row.paused ? { paused: true } : {}),
  };
}

/**
 * Adds a feed to a town: the address is checked (http(s), no credentials), fetched once under the
 * fetching rules (public addresses only, size and time limits) and parsed; only then stored, with
 * the items of that fetch. Refusals are problems with nothing stored. An operator's feed names the
 * lease it is added under (`leaseId`): it is paused when that lease ends.
 */
export async function addFeed(ctx: AppContext, slug: string, rawUrl: string, addedBy: FeedOwner, leaseId: string | null = null): Promise<TownFeed> {
  const place = requireTown(ctx, slug);
  let url: string;
  try {
    url = checkFeedUrl(rawUrl.trim()).href;
  } catch (err) {
    throw feedProblem(err as SourceError, ctx.config.sources.feedMaxBytes);
  }
  const existing = townFeedByUrl(ctx.db, place.geoid, url);
  // A feed paused with the lease it was added under is the town's to take up again: re-vetted below and stored anew.
  if (existing && !existing.paused) throw new AppError("feed_exists", `${place.name} already has the feed ${url}.`);
  const now = ctx.config.now();
  let parsed: ParsedFeed;
  let fetched: Awaited<ReturnType<AppContext["sources"]["feeds"]["fetch"]>>;
  try {
    fetched = await ctx.sources.feeds.fetch(url);
    if (fetched.status !== "ok") throw new SourceError("status", "the server answered 304 to a request that was not conditional");
    parsed = parseFeedBody(fetched.body, fetched.url, now);
  } catch (err) {
    if (err instanceof SourceError) throw feedProblem(err, ctx.config.sources.feedMaxBytes);
    throw err;
  }
  const title = parsed.title ?? new URL(url).hostname.replace(/^www\./, "");
  if (existing) deleteTownFeed(ctx.db, existing.id);
  const row = insertTownFeed(ctx.db, {
    placeGeoid: place.geoid, url, kind: parsed.kind, sourceTitle: parsed.title, title, addedBy, leaseId,
    itemsJson: JSON.stringify(parsed.items), body: parsed.kind === "ical" ? fetched.body : null, etag: fetched.etag, lastModified: fetched.lastModified,
  }, now.toISOString());
  if (!row) throw new AppError("feed_exists", `${place.name} already has the feed ${url}.`);
  ctx.log.info({ feed: row.id, slug: place.slug, kind: row.kind, items: row.item_count, addedBy }, "feed added");
  return townFeedOf(row);
}

/** One town's feeds (slug), or every town's. */
export function listFeeds(ctx: AppContext, slug?: string): { feeds: TownFeed[] } {
  const place = slug === undefined ? undefined : requireTown(ctx, slug);
  return { feeds: listTownFeeds(ctx.db, place?.geoid).map(townFeedOf) };
}

/** Removes a town's feed; `onlyTown` (the operator desk) refuses a feed of another town as not found. */
export function removeFeed(ctx: AppContext, id: number, onlyTown?: string, removedBy: FeedOwner = "staff"): { removed: TownFeed } {
  const row = deleteTownFeedOf(ctx, id, onlyTown);
  if (!row) throw new AppError("not_found", `There is no feed ${id}${onlyTown ? ` in ${onlyTown}` : ""}.`);
  // A directory source removed from a town stays removed: the weekly re-check does not add it back (the desk can restore it).
  if (row.added_by === "directory") addRemoval(ctx.db, { place_geoid: row.place_geoid, url: row.url, title: row.title, candidate_id: row.candidate_id, removed_by: removedBy }, ctx.config.now().toISOString());
  ctx.log.info({ feed: id, slug: row.slug }, "feed removed");
  return { removed: townFeedOf(row) };
}

function deleteTownFeedOf(ctx: AppContext, id: number, onlyTown?: string): TownFeedView | undefined {
  if (onlyTown !== undefined) {
    const place = requireTown(ctx, onlyTown);
    const listed = listTownFeeds(ctx.db, place.geoid).some((f) => f.id === id);
    if (!listed) return undefined;
  }
  return deleteTownFeed(ctx.db, id);
}
