import { z } from "zod";
import { Slug } from "./common.ts";

// A town's public feeds (iCalendar calendars, RSS and Atom news): added by staff or the town's
// operator, fetched each morning, drawn on by the edition.

export const FeedKind = z.enum(["ical", "rss", "atom", "rdf", "json"]).meta({
  id: "FeedKind",
  description: "Detected when the feed is added: `ical` (iCalendar events), `rss`, `atom`, `rdf` (RSS 1.0) or `json` (JSON Feed) headlines.",
});

export const TownFeed = z.object({
  id: z.int().positive(),
  town: z.object({ slug: z.string(), name: z.string(), state: z.string() }),
  url: z.string().meta({ description: "The address fetched each morning" }),
  kind: FeedKind,
  title: z.string().meta({ description: "The calendar's or outlet's name readers see (the feed's own title when it has one)" }),
  addedBy: z.string().meta({ description: "`staff`, or the email of the operator who added it" }),
  createdAt: z.string(),
  lastFetchedAt: z.string().nullable().meta({ description: "The last fetch attempt (ISO instant)" }),
  status: z.enum(["ok", "failing"]).meta({ description: "`failing` after 3 mornings in a row without a good fetch; the last good items are used for a day" }),
  lastError: z.string().nullable().meta({ description: "Why the last fetch failed; null after a good one" }),
  consecutiveFailures: z.int().nonnegative(),
  itemsFetchedAt: z.string().nullable().meta({ description: "When the kept items were last confirmed (a 200 or a 304)" }),
  itemCount: z.int().nonnegative().meta({ description: "Events (occurrences over the coming weeks) or headlines kept from the last good fetch" }),
  scope: z.enum(["town", "county"]).optional().meta({ description: "Directory feeds: `county` for a county-wide outlet, whose items reach the town only when they name it" }),
  homeUrl: z.string().nullable().optional().meta({ description: "Directory feeds: the outlet's site, credited in the edition" }),
  verifiedAt: z.string().nullable().optional().meta({ description: "Directory feeds: when it last passed verification (re-checked weekly, dropped after failing for a week)" }),
  paused: z.literal(true).optional().meta({ description: "An operator's feed whose lease has ended: no longer fetched or shown; kept for staff" }),
}).meta({ id: "TownFeed" });

export const TownFeedList = z.object({ feeds: z.array(TownFeed) });
export const TownFeedParams = z.object({ slug: Slug });
export const FeedIdParams = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });
export const FeedListQuery = z.object({ slug: Slug.optional() });
export const AddFeedBody = z.object({
  url: z.string().trim().min(1).max(2000).meta({ description: "An http(s) address of an iCalendar (.ics), RSS or Atom feed on the public internet" }),
});
export const RemovedFeed = z.object({ removed: TownFeed });

export type TownFeed = z.infer<typeof TownFeed>;
