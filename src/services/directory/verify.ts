import { itemsNamingTown } from "../../core/sources/county-filter.ts";
import type { CalendarOccurrence } from "../../core/calendar/calendar-events.ts";
import { civicPlusFeeds, feedLinksOf, isCommentFeed, robotsAllow, wordPressFeed } from "../../integrations/feeds/discover.ts";
import { checkFeedUrl, type Validators } from "../../integrations/feeds/fetch.ts";
import { legistarEventsUrl } from "../../integrations/feeds/legistar.ts";
import type { StoredHeadline } from "../../integrations/feeds/syndication.ts";
import { SourceError } from "../../integrations/http-json.ts";
import {
  blockOf, dueCandidates, feedIdsOfCandidate, feedSourceByUrl, isRemoved, markVerified, setDirectoryProvenance,
} from "../../store/directory/sources.ts";
import { candidatesOfPlace, recordCandidateCheck, type CandidateRow, type CandidateStatus } from "../../store/directory/candidates.ts";
import { deleteTownFeed, findTownFeed, insertTownFeed, townFeedByUrl, type FeedSourceRow } from "../../store/sources/feeds.ts";
import { findPlaceByGeoid, type PlaceRow } from "../../store/places/places.ts";
import { requirePlace } from "../places/cities.ts";
import type { AppContext } from "../platform/context.ts";
import { parseFeedBody, type ParsedFeed } from "../sources/feeds.ts";

// Verifying the town directory's candidates (town_source_candidates) into public sources of the
// town (town_feeds, added by 'directory'), with the same fetcher as the towns' feeds (public
// addresses only, size and time limits, our User-Agent) and robots.txt respected. For each candidate:
// its recorded feed addresses first, then the feeds its home page announces, then its platform's
// conventions (CivicPlus, WordPress, Legistar's events API). A feed is kept when it parses and has
// items of the last few weeks (a calendar: meetings or events in its window). Not on the morning's
// path: the server checks a few sites an hour in the background (startDirectoryChecks), staff with
// `npm run admin -- directory verify SLUG`; the morning reads only what is verified.

/** A headline feed is current when an item is at most this old. */
export const FRESH_MS = 21 * 86_400_000;
/** Directory feeds are verified again after this long ... */
export const RECHECK_MS = 7 * 86_400_000;
/** ... and dropped when they have not passed for this long. */
export const DROP_AFTER_MS = 7 * 86_400_000;
/** Addresses tried per candidate, and feeds kept of one. */
const MAX_TRIES = 8;
const MAX_FEEDS = 4;

export interface TriedAddress {
  url: string;
  /** Where the address came from. */
  via: "recorded" | "home page" | "platform";
  outcome: "ok" | "stale" | "failed" | "refused" | "robots" | "blocked" | "removed" | "empty";
  detail: string;
}

export interface CandidateOutcome {
  id: number;
  name: string;
  url: string;
  kind: CandidateRow["kind"];
  scope: CandidateRow["scope"];
  status: CandidateStatus;
  detail: string;
  /** Town feeds added, verified again, or dropped by this check. */
  feeds: Array<{ id: number; url: string; title: string; kind: string; action: "added" | "verified" | "dropped" | "kept" }>;
  tried: TriedAddress[];
}

/** robots.txt of an origin: its text, `null` for none (4xx), `undefined` when unreadable (5xx), or why the site could not be reached. */
type Robots = string | null | undefined | SourceError;

/** What one check run shares between candidates: robots.txt per origin. */
interface Run {
  robots: Map<string, Promise<Robots>>;
}

const newRun = (): Run => ({ robots: new Map() });

function robotsOf(ctx: AppContext, run: Run, url: string, signal?: AbortSignal): Promise<Robots> {
  const origin = new URL(url).origin;
  let p = run.robots.get(origin);
  if (!p) {
    p = ctx.sources.feeds.fetch(`${origin}/robots.txt`, {}, signal).then(
      (r) => (r.status === "ok" ? r.body : null),
      (err: unknown) => {
        // No robots.txt (4xx) allows everything; a server error or an unreachable site allows nothing (RFC 9309).
        if (err instanceof SourceError && err.kind === "status" && /answered 4\d\d/.test(err.message)) return null;
        // A site that cannot be reached (down, refused, too slow) says so rather than "robots.txt".
        if (err instanceof SourceError && err.kind !== "status" && err.kind !== "too_large" && err.kind !== "invalid") return err;
        return undefined;
      },
    );
    run.robots.set(origin, p);
  }
  return p;
}

const hasItems = (p: ParsedFeed) => p.items.length > 0;

/** A source's stored items after a 304 (a calendar's text expanded again over today's window). */
function storedFeed(known: FeedSourceRow, now: Date): ParsedFeed {
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
function freshness(parsed: ParsedFeed, now: Date, place: PlaceRow, scope: CandidateRow["scope"]): { fresh: boolean; detail: string } {
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

/** The addresses to try for a candidate, in order: recorded, then (lazily) its home page's, then its platform's. */
async function* addressesOf(ctx: AppContext, run: Run, c: CandidateRow, tried: TriedAddress[], signal?: AbortSignal): AsyncGenerator<{ url: string; via: TriedAddress["via"] }> {
  let recorded: unknown;
  try {
    recorded = JSON.parse(c.feed_urls);
  } catch {
    recorded = [];
  }
  for (const raw of Array.isArray(recorded) ? recorded : []) {
    if (typeof raw !== "string") continue;
    let url: string;
    try {
      url = new URL(raw, c.url).href;
    } catch {
      continue;
    }
    if (!isCommentFeed(url)) yield { url, via: "recorded" };
  }
  // A Legistar client's site announces no feeds: its meetings come from the API.
  if (c.platform !== "legistar") {
    const home = await fetchPage(ctx, run, c.url, signal);
    // The home page is asked unconditionally: a 304 cannot happen.
    if (!home.ok) tried.push({ url: c.url, via: "home page", outcome: home.outcome, detail: home.detail });
    else if ("body" in home) for (const link of feedLinksOf(home.body, home.url)) yield { url: link.url, via: "home page" };
  }
  if (c.platform === "civicplus") {
    // platform_id is the CivicPlus host; the recorded home page's scheme is kept when it is the same host.
    const site = c.platform_id && !sameHost(c.url, c.platform_id) ? `https://${c.platform_id}` : c.url;
    for (const url of civicPlusFeeds(site)) yield { url, via: "platform" };
  }
  if (c.platform === "wordpress") yield { url: wordPressFeed(c.url), via: "platform" };
  if (c.platform === "legistar" && c.platform_id) yield { url: legistarEventsUrl(ctx.config.sources.legistarApiUrl, c.platform_id), via: "platform" };
}

const sameHost = (url: string, host: string) => {
  try {
    return new URL(url).host.toLowerCase() === host.toLowerCase();
  } catch {
    return false;
  }
};

type Page =
  | { ok: true; body: string; url: string; etag: string | null; lastModified: string | null }
  | { ok: true; notModified: true }
  | { ok: false; outcome: TriedAddress["outcome"]; detail: string };

/** One address fetched under the feed rules, robots.txt first. */
async function fetchPage(ctx: AppContext, run: Run, url: string, signal?: AbortSignal, validators?: Validators): Promise<Page> {
  try {
    checkFeedUrl(url);
  } catch (err) {
    return { ok: false, outcome: "refused", detail: (err as Error).message };
  }
  const robots = await robotsOf(ctx, run, url, signal);
  if (robots instanceof SourceError) return { ok: false, outcome: robots.kind === "refused" ? "refused" : "failed", detail: robots.message };
  if (!robotsAllow(url, robots)) return { ok: false, outcome: "robots", detail: robots === undefined ? "robots.txt could not be read (the server answered an error): nothing is fetched" : "robots.txt does not allow us this address" };
  try {
    const r = await ctx.sources.feeds.fetch(url, validators ?? {}, signal);
    if (r.status !== "ok") return validators ? { ok: true, notModified: true } : { ok: false, outcome: "failed", detail: "answered 304 to a request that was not conditional" };
    return { ok: true, body: r.body, url: r.url, etag: r.etag, lastModified: r.lastModified };
  } catch (err) {
    if (err instanceof SourceError) return { ok: false, outcome: err.kind === "refused" ? "refused" : "failed", detail: err.message };
    throw err;
  }
}

/** Checks one candidate now: adds the feeds that pass, verifies again those it had, drops those failing for a week. */
async function verifyCandidate(ctx: AppContext, run: Run, place: PlaceRow, c: CandidateRow, signal?: AbortSignal): Promise<CandidateOutcome> {
  const now = ctx.config.now();
  const at = now.toISOString();
  const tried: TriedAddress[] = [];
  const feeds: CandidateOutcome["feeds"] = [];
  const outcome = (status: CandidateStatus, detail: string): CandidateOutcome => {
    recordCandidateCheck(ctx.db, c.id, status, detail, at);
    return { id: c.id, name: c.name, url: c.url, kind: c.kind, scope: c.scope, status, detail, feeds, tried };
  };
  const dropStale = () => {
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
  };

  const block = blockOf(ctx.db, c.url);
  if (block) {
    for (const f of feedIdsOfCandidate(ctx.db, c.id)) {
      const row = deleteTownFeed(ctx.db, f.id);
      if (row) feeds.push({ id: f.id, url: row.url, title: row.title, kind: row.kind, action: "dropped" });
    }
    return outcome("blocked", `blocked by staff (${block.kind} ${block.value}${block.reason ? `: ${block.reason}` : ""})`);
  }

  const seen = new Set<string>();
  let kept = 0;
  const addresses = addressesOf(ctx, run, c, tried, signal);
  // Limits are checked before asking for the next address: the home page is not fetched once they are reached.
  while (tried.length < MAX_TRIES && kept < MAX_FEEDS && !signal?.aborted) {
    const next = await addresses.next();
    if (next.done) break;
    const { url, via } = next.value;
    if (seen.has(url)) continue;
    seen.add(url);
    const blocked = blockOf(ctx.db, url);
    if (blocked) {
      tried.push({ url, via, outcome: "blocked", detail: `blocked by staff (${blocked.kind} ${blocked.value})` });
      continue;
    }
    if (isRemoved(ctx.db, place.geoid, url)) {
      tried.push({ url, via, outcome: "removed", detail: "removed from the town by its operator" });
      continue;
    }
    // An address already fetched is asked conditionally: unchanged, its stored items are judged.
    const known = feedSourceByUrl(ctx.db, url);
    const page = await fetchPage(ctx, run, url, signal, known && (known.etag || known.last_modified) ? { etag: known.etag, lastModified: known.last_modified } : undefined);
    if (!page.ok) {
      tried.push({ url, via, outcome: page.outcome, detail: page.detail });
      continue;
    }
    let parsed: ParsedFeed;
    try {
      parsed = "body" in page ? parseFeedBody(page.body, page.url, now) : storedFeed(known!, now);
    } catch (err) {
      if (!(err instanceof SourceError)) throw err;
      tried.push({ url, via, outcome: "failed", detail: `not a feed: ${err.message}` });
      continue;
    }
    const fresh = freshness(parsed, now, place, c.scope);
    if (!fresh.fresh || !hasItems(parsed)) {
      tried.push({ url, via, outcome: hasItems(parsed) ? "stale" : "empty", detail: fresh.detail });
      continue;
    }
    tried.push({ url, via, outcome: "ok", detail: fresh.detail });
    // The address asked for is the one stored (a redirect's target may change again).
    const existing = townFeedByUrl(ctx.db, place.geoid, url);
    if (existing) {
      if (existing.added_by === "directory") {
        markVerified(ctx.db, existing.id, at);
        feeds.push({ id: existing.id, url, title: existing.title, kind: existing.kind, action: "verified" });
      } else tried.at(-1)!.detail += ` (already a feed of the town, added by ${existing.added_by === "staff" ? "staff" : "its operator"})`;
      kept++;
      continue;
    }
    const row = insertTownFeed(ctx.db, {
      placeGeoid: place.geoid, url, kind: parsed.kind, sourceTitle: parsed.title, title: c.name, addedBy: "directory",
      itemsJson: JSON.stringify(parsed.items), body: parsed.kind === "ical" ? ("body" in page ? page.body : known!.body) : null,
      etag: "body" in page ? page.etag : known!.etag, lastModified: "body" in page ? page.lastModified : known!.last_modified,
    }, at);
    if (!row) continue;
    setDirectoryProvenance(ctx.db, row.id, { candidateId: c.id, scope: c.scope, homeUrl: c.url }, at);
    feeds.push({ id: row.id, url, title: row.title, kind: row.kind, action: "added" });
    kept++;
    ctx.log.info({ feed: row.id, slug: place.slug, url, candidate: c.id, dataset: c.dataset, row: c.dataset_row }, "directory source added");
  }
  dropStale();

  const ok = tried.filter((t) => t.outcome === "ok");
  if (ok.length > 0) return outcome("verified", ok.map((t) => `${t.url}: ${t.detail}`).join("; "));
  const worst = (o: TriedAddress["outcome"]) => tried.filter((t) => t.outcome === o);
  if (worst("stale").length + worst("empty").length > 0) return outcome("stale", [...worst("stale"), ...worst("empty")].map((t) => `${t.url}: ${t.detail}`).join("; "));
  if (worst("refused").length > 0 && worst("failed").length === 0) return outcome("refused", worst("refused").map((t) => `${t.url}: ${t.detail}`).join("; "));
  const down = tried.find((t) => t.via === "home page" && t.outcome === "failed" && !/answered 4\d\d/.test(t.detail));
  if (down) return outcome("failed", `the site could not be reached: ${down.detail}`);
  if (tried.some((t) => t.outcome === "refused")) return outcome("refused", worst("refused").map((t) => `${t.url}: ${t.detail}`).join("; "));
  return outcome("no_feed", tried.length ? tried.map((t) => `${t.url}: ${t.detail}`).join("; ") : "no feed recorded, announced or known for its platform");
}

/**
 * Tries every candidate of a town now (the admin command, the desk's "check now"); in candidate order.
 * `notWithinMs` skips candidates checked that recently (the desk's button cannot make us hammer a site).
 */
export async function verifyTown(ctx: AppContext, slug: string, options: { signal?: AbortSignal; notWithinMs?: number } = {}): Promise<{ town: { slug: string; name: string; state: string }; candidates: CandidateOutcome[] }> {
  const place = requirePlace(ctx, slug);
  const run = newRun();
  const candidates: CandidateOutcome[] = [];
  const now = ctx.config.now().getTime();
  for (const c of candidatesOfPlace(ctx.db, place.geoid)) {
    if (options.notWithinMs && c.checked_at && now - Date.parse(c.checked_at) < options.notWithinMs) continue;
    candidates.push(await verifyCandidate(ctx, run, place, c, options.signal));
  }
  return { town: { slug: place.slug, name: place.name, state: place.state_name }, candidates };
}

/** Verifies one candidate by id (restoring a removed source checks it again). */
export async function verifyOneCandidate(ctx: AppContext, place: PlaceRow, candidate: CandidateRow): Promise<CandidateOutcome> {
  return verifyCandidate(ctx, newRun(), place, candidate);
}

/** One background step: the next due candidates (new subscribed towns first), at most `sites`. */
export async function verifyDue(ctx: AppContext, sites: number, signal?: AbortSignal): Promise<CandidateOutcome[]> {
  const now = ctx.config.now();
  const run = newRun();
  const out: CandidateOutcome[] = [];
  for (const c of dueCandidates(ctx.db, new Date(now.getTime() - RECHECK_MS).toISOString(), sites)) {
    if (signal?.aborted) break;
    const place = findPlaceByGeoid(ctx.db, c.place_geoid);
    if (!place) continue;
    try {
      out.push(await verifyCandidate(ctx, run, place, c, signal));
    } catch (err) {
      // Recorded, so one candidate that trips an unexpected error does not hold the queue's head.
      recordCandidateCheck(ctx.db, c.id, "failed", `unexpected: ${(err as Error).message}`, now.toISOString());
      ctx.log.error({ err, candidate: c.id }, "directory check failed");
    }
  }
  return out;
}

/**
 * The server's background checks: one site every 3600/DIRECTORY_CHECKS_PER_HOUR seconds, new
 * subscribed towns first, each candidate again a week after its last check. Off at 0.
 */
export function startDirectoryChecks(ctx: AppContext): { stop(): Promise<void> } | undefined {
  const perHour = ctx.config.sources.directoryChecksPerHour;
  if (perHour <= 0) return undefined;
  const stopper = new AbortController();
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(() => verifyDue(ctx, 1, stopper.signal)).catch((err: unknown) => ctx.log.error({ err }, "directory check failed"));
  }, Math.max(1000, Math.round(3_600_000 / perHour)));
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      stopper.abort();
      await running;
    },
  };
}
