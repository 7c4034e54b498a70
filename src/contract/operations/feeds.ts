import { AddFeedBody, FeedIdParams, FeedListQuery, RemovedFeed, TownFeed, TownFeedList, TownFeedParams } from "../feeds.ts";
import { CACHE, type Operation } from "../operation.ts";

// Staff manage the towns' feeds: `Authorization: Bearer ADMIN_TOKEN` over HTTP, and
// `npm run admin -- feeds ...` through the same bindings. The operator desk calls the same service.
const ADMIN_ERRORS = ["unauthorized", "forbidden", "service_misconfigured", "validation_error"] as const;
const FEED_REFUSALS = ["feed_address_refused", "feed_unreachable", "feed_too_large", "feed_unreadable", "feed_exists"] as const;

export const feedOperations = {
  adminAddFeed: {
    operationId: "adminAddFeed", method: "POST", path: "/admin/towns/{slug}/feeds", tags: ["Admin"],
    summary: "Add an iCalendar, RSS or Atom feed to a town (fetched once now to vet it)",
    description: "The address is fetched once (public http(s) addresses only, 2 MB and 5 s at most) and must parse as an iCalendar calendar or an RSS/Atom feed; otherwise a problem names why and nothing is stored.",
    params: TownFeedParams, body: AddFeedBody, response: TownFeed,
    errors: [...ADMIN_ERRORS, "invalid_json", "payload_too_large", "invalid_slug", "city_not_found", ...FEED_REFUSALS],
    cache: CACHE.none, auth: "admin", visibility: "internal",
  },
  adminListTownFeeds: {
    operationId: "adminListTownFeeds", method: "GET", path: "/admin/towns/{slug}/feeds", tags: ["Admin"],
    summary: "A town's feeds with their fetch status",
    params: TownFeedParams, response: TownFeedList,
    errors: [...ADMIN_ERRORS, "invalid_slug", "city_not_found"], cache: CACHE.none, auth: "admin", visibility: "internal",
  },
  adminListFeeds: {
    operationId: "adminListFeeds", method: "GET", path: "/admin/feeds", tags: ["Admin"],
    summary: "Every town's feeds (or one town's with ?slug=), by town",
    query: FeedListQuery, response: TownFeedList,
    errors: [...ADMIN_ERRORS, "city_not_found"], cache: CACHE.none, auth: "admin", visibility: "internal",
  },
  adminRemoveFeed: {
    operationId: "adminRemoveFeed", method: "DELETE", path: "/admin/feeds/{id}", tags: ["Admin"],
    summary: "Remove a town's feed (its events and headlines stop appearing from the next edition)",
    params: FeedIdParams, response: RemovedFeed,
    errors: [...ADMIN_ERRORS, "not_found"], cache: CACHE.none, auth: "admin", visibility: "internal",
  },
} satisfies Record<string, Operation>;
