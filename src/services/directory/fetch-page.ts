import { robotsAllow } from "../../integrations/feeds/discover.ts";
import { checkFeedUrl, type Validators } from "../../integrations/feeds/fetch.ts";
import { SourceError } from "../../integrations/http-json.ts";
import type { AppContext } from "../platform/context.ts";
import type { TriedAddress } from "./candidate-outcome.ts";

// One address of a directory candidate fetched as the directory's checks fetch: with the towns' feed
// fetcher (public addresses only, size and time limits, our User-Agent), robots.txt respected (RFC 9309).

/** robots.txt of an origin: its text, `null` for none (4xx), `undefined` when unreadable (5xx), or why the site could not be reached. */
type Robots = string | null | undefined | SourceError;

/** What one check run shares between candidates: robots.txt per origin. */
export interface CheckRun {
  robots: Map<string, Promise<Robots>>;
}

export const newCheckRun = (): CheckRun => ({ robots: new Map() });

function robotsOf(ctx: AppContext, run: CheckRun, url: string, signal?: AbortSignal): Promise<Robots> {
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

export type Page =
  | { ok: true; body: string; url: string; etag: string | null; lastModified: string | null }
  | { ok: true; notModified: true }
  | { ok: false; outcome: TriedAddress["outcome"]; detail: string };

/** One address fetched under the feed rules, robots.txt first. */
export async function fetchPage(ctx: AppContext, run: CheckRun, url: string, signal?: AbortSignal, validators?: Validators): Promise<Page> {
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
