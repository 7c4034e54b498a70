import { SourceError } from "../../integrations/http-json.ts";
import {
  blockOf, feedIdsOfCandidate, feedSourceByUrl, isRemoved, markVerified, setDirectoryProvenance,
} from "../../store/directory/sources.ts";
import { recordCandidateCheck, type CandidateRow, type CandidateStatus } from "../../store/directory/candidates.ts";
import { deleteTownFeed, findTownFeed, insertTownFeed, townFeedByUrl } from "../../store/sources/feeds.ts";
import type { PlaceRow } from "../../store/places/places.ts";
import type { AppContext } from "../platform/context.ts";
import { parseFeedBody, type ParsedFeed } from "../sources/feeds.ts";
import { addressesOf } from "./candidate-addresses.ts";
import { candidateStatus, type CandidateOutcome, type TriedAddress } from "./candidate-outcome.ts";
import { freshness, hasItems, storedFeed } from "./feed-freshness.ts";
import { fetchPage, type CheckRun } from "./fetch-page.ts";

// Checking one directory candidate (src/services/directory/verify.ts): its addresses tried in order,
// each fetched and judged, the current feeds kept as sources of the town, those failing for a week dropped.

/** Directory feeds are dropped when they have not passed for this long. */
export const DROP_AFTER_MS = 7 * 86_400_000;
/** Addresses tried per candidate, and feeds kept of one. */
const MAX_TRIES = 8;
const MAX_FEEDS = 4;

type TouchedFeeds = CandidateOutcome["feeds"];

/** A current feed found at an address, with what to store of it. */
interface CurrentFeed {
  url: string;
  parsed: ParsedFeed;
  body: string | null;
  etag: string | null;
  lastModified: string | null;
}

/** Fetches and judges one address: what to record of it, and the feed when it is current. */
async function judgeAddress(ctx: AppContext, run: CheckRun, place: PlaceRow, c: CandidateRow, address: { url: string; via: TriedAddress["via"] }, now: Date, signal?: AbortSignal): Promise<{ tried: TriedAddress; feed?: CurrentFeed }> {
  const { url, via } = address;
  const blocked = blockOf(ctx.db, url);
  if (blocked) return { tried: { url, via, outcome: "blocked", detail: `blocked by staff (${blocked.kind} ${blocked.value})` } };
  if (isRemoved(ctx.db, place.geoid, url)) return { tried: { url, via, outcome: "removed", detail: "removed from the town by its operator" } };
  // An address already fetched is asked conditionally: unchanged, its stored items are judged.
  const known = feedSourceByUrl(ctx.db, url);
  const page = await fetchPage(ctx, run, url, signal, known && (known.etag || known.last_modified) ? { etag: known.etag, lastModified: known.last_modified } : undefined);
  if (!page.ok) return { tried: { url, via, outcome: page.outcome, detail: page.detail } };
  let parsed: ParsedFeed;
  try {
    parsed = "body" in page ? parseFeedBody(page.body, page.url, now) : storedFeed(known!, now);
  } catch (err) {
    if (!(err instanceof SourceError)) throw err;
    return { tried: { url, via, outcome: "failed", detail: `not a feed: ${err.message}` } };
  }
  const fresh = freshness(parsed, now, place, c.scope);
  if (!fresh.fresh || !hasItems(parsed)) return { tried: { url, via, outcome: hasItems(parsed) ? "stale" : "empty", detail: fresh.detail } };
  return {
    tried: { url, via, outcome: "ok", detail: fresh.detail },
    feed: {
      url, parsed, body: parsed.kind === "ical" ? ("body" in page ? page.body : known!.body) : null,
      etag: "body" in page ? page.etag : known!.etag, lastModified: "body" in page ? page.lastModified : known!.last_modified,
    },
  };
}

/** Keeps a current feed as a source of the town (verified again if the directory had it, added if new); whether it counts as kept. */
function keepFeed(ctx: AppContext, place: PlaceRow, c: CandidateRow, feed: CurrentFeed, tried: TriedAddress, feeds: TouchedFeeds, at: string): boolean {
  const { url, parsed } = feed;
  // The address asked for is the one stored (a redirect's target may change again).
  const existing = townFeedByUrl(ctx.db, place.geoid, url);
  if (existing) {
    if (existing.added_by === "directory") {
      markVerified(ctx.db, existing.id, at);
      feeds.push({ id: existing.id, url, title: existing.title, kind: existing.kind, action: "verified" });
    } else tried.detail += ` (already a feed of the town, added by ${existing.added_by === "staff" ? "staff" : "its operator"})`;
    return true;
  }
  const row = insertTownFeed(ctx.db, {
    placeGeoid: place.geoid, url, kind: parsed.kind, sourceTitle: parsed.title, title: c.name, addedBy: "directory",
    itemsJson: JSON.stringify(parsed.items), body: feed.body, etag: feed.etag, lastModified: feed.lastModified,
  }, at);
  if (!row) return false;
  setDirectoryProvenance(ctx.db, row.id, { candidateId: c.id, scope: c.scope, homeUrl: c.url }, at);
  feeds.push({ id: row.id, url, title: row.title, kind: row.kind, action: "added" });
  ctx.log.info({ feed: row.id, slug: place.slug, url, candidate: c.id, dataset: c.dataset, row: c.dataset_row }, "directory source added");
  return true;
}

/** Tries the candidate's addresses in order, keeping the current feeds, until enough are tried or kept. */
async function tryAddresses(ctx: AppContext, run: CheckRun, place: PlaceRow, c: CandidateRow, check: { tried: TriedAddress[]; feeds: TouchedFeeds; now: Date; at: string }, signal?: AbortSignal): Promise<void> {
  const { tried } = check;
  const seen = new Set<string>();
  let kept = 0;
  const addresses = addressesOf(ctx, run, c, tried, signal);
  // Limits are checked before asking for the next address: the home page is not fetched once they are reached.
  while (tried.length < MAX_TRIES && kept < MAX_FEEDS && !signal?.aborted) {
    const next = await addresses.next();
    if (next.done) break;
    if (seen.has(next.value.url)) continue;
    seen.add(next.value.url);
    const judged = await judgeAddress(ctx, run, place, c, next.value, check.now, signal);
    tried.push(judged.tried);
    if (judged.feed && keepFeed(ctx, place, c, judged.feed, judged.tried, check.feeds, check.at)) kept++;
  }
}

/** The candidate's other directory feeds: dropped once they have not passed for a week, kept until then. */
function dropStale(ctx: AppContext, place: PlaceRow, c: CandidateRow, feeds: TouchedFeeds, now: Date): void {
  for (const f of feedIdsOfCandidate(ctx.db, c.id)) {
    if (feeds.some((x) => x.id === f.id)) continue;
    const row = findTownFeed(ctx.db, f.id);
    if (!row) continue;
    if (!f.verified_at || now.getTime() - Date.parse(f.verified_at) >= DROP_AFTER_MS) {
      deleteTownFeed(ctx.db, f.id);
      feeds.push({ id: f.id, url: row.url, title: row.title, kind: row.kind, action: "dropped" });
      ctx.log.info({ feed: f.id, slug: place.slug, url: row.url }, "directory feed dropped after failing for a week");
    } else feeds.push({ id: f.id, url: row.url, title: row.title, kind: row.kind, action: "kept" });
  }
}

/** Checks one candidate now: adds the feeds that pass, verifies again those it had, drops those failing for a week. */
export async function verifyCandidate(ctx: AppContext, run: CheckRun, place: PlaceRow, c: CandidateRow, signal?: AbortSignal): Promise<CandidateOutcome> {
  const now = ctx.config.now();
  const at = now.toISOString();
  const tried: TriedAddress[] = [];
  const feeds: TouchedFeeds = [];
  const outcome = (status: CandidateStatus, detail: string): CandidateOutcome => {
    recordCandidateCheck(ctx.db, c.id, status, detail, at);
    return { id: c.id, name: c.name, url: c.url, kind: c.kind, scope: c.scope, status, detail, feeds, tried };
  };

  const block = blockOf(ctx.db, c.url);
  if (block) {
    for (const f of feedIdsOfCandidate(ctx.db, c.id)) {
      const row = deleteTownFeed(ctx.db, f.id);
      if (row) feeds.push({ id: f.id, url: row.url, title: row.title, kind: row.kind, action: "dropped" });
    }
    return outcome("blocked", `blocked by staff (${block.kind} ${block.value}${block.reason ? `: ${block.reason}` : ""})`);
  }

  await tryAddresses(ctx, run, place, c, { tried, feeds, now, at }, signal);
  dropStale(ctx, place, c, feeds, now);
  return outcome(...candidateStatus(tried));
}
