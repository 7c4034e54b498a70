import { civicPlusFeeds, feedLinksOf, isCommentFeed, wordPressFeed } from "../../integrations/feeds/discover.ts";
import { legistarEventsUrl } from "../../integrations/feeds/legistar.ts";
import type { CandidateRow } from "../../store/directory/candidates.ts";
import type { AppContext } from "../platform/context.ts";
import type { TriedAddress } from "./candidate-outcome.ts";
import { fetchPage, type CheckRun } from "./fetch-page.ts";

// Where a directory candidate's feeds may be, in the order they are tried (docs/sources.md "From the
// town directory to sources of the town").

/** The addresses to try for a candidate, in order: recorded, then (lazily) its home page's, then its platform's. */
export async function* addressesOf(ctx: AppContext, run: CheckRun, c: CandidateRow, tried: TriedAddress[], signal?: AbortSignal): AsyncGenerator<{ url: string; via: TriedAddress["via"] }> {
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
