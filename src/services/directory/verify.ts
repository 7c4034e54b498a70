import { dueCandidates } from "../../store/directory/sources.ts";
import { candidatesOfPlace, recordCandidateCheck, type CandidateRow } from "../../store/directory/candidates.ts";
import { findPlaceByGeoid, type PlaceRow } from "../../store/places/places.ts";
import { requireTown } from "../places/cities.ts";
import type { AppContext } from "../platform/context.ts";
import type { CandidateOutcome } from "./candidate-outcome.ts";
import { newCheckRun } from "./fetch-page.ts";
import { verifyCandidate } from "./verify-candidate.ts";


// Verifying the town directory's candidates (town_source_candidates) into public sources of the
// town (town_feeds, added by 'directory'), with the same fetcher as the towns' feeds (public
// addresses only, size and time limits, our User-Agent) and robots.txt respected. For each candidate:
// its recorded feed addresses first, then the feeds its home page announces, then its platform's
// conventions (CivicPlus, WordPress, Legistar's events API). A feed is kept when it parses and has
// items of the last few weeks (a calendar: meetings or events in its window). Not on the morning's
// path: the server checks a few sites an hour in the background (startDirectoryChecks), staff with
// `npm run admin -- directory verify SLUG`; the morning reads only what is verified. One candidate's
// check: verify-candidate.ts (its addresses: candidate-addresses.ts; fetched: fetch-page.ts; judged:
// feed-freshness.ts; its status: candidate-outcome.ts).

/** Directory feeds are verified again after this long (and dropped when they have not passed for DROP_AFTER_MS). */
export const RECHECK_MS = 7 * 86_400_000;

/**
 * Tries every candidate of a town now (the admin command, the desk's "check now"); in candidate order.
 * `notWithinMs` skips candidates checked that recently (the desk's button cannot make us hammer a site).
 */
export async function verifyTown(ctx: AppContext, slug: string, options: { signal?: AbortSignal; notWithinMs?: number } = {}): Promise<{ town: { slug: string; name: string; state: string }; candidates: CandidateOutcome[] }> {
  const place = requireTown(ctx, slug);
  const run = newCheckRun();
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
  return verifyCandidate(ctx, newCheckRun(), place, candidate);
}

/** One background step: the next due candidates (new subscribed towns first), at most `sites`. */
export async function verifyDue(ctx: AppContext, sites: number, signal?: AbortSignal): Promise<CandidateOutcome[]> {
  const now = ctx.config.now();
  const run = newCheckRun();
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
