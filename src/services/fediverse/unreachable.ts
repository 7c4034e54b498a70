import type { Federation } from "@fedify/fedify";
import { removeFollowersAtInbox } from "../../store/fediverse/followers.ts";
import type { AppContext } from "../platform/context.ts";

/**
 * What happens when Fedify gives up on a delivery for good. An inbox that answers 404 or 410 (Fedify's
 * permanent-failure statuses) is gone: the followers the delivery was for at that inbox are removed,
 * in every town, so no morning posts there again. A delivery dropped because the server's circuit stayed
 * open too long only says the server was down: its followers are kept, and the next morning tries again.
 */
export function registerPermanentFailures(federation: Federation<AppContext>): void {
  federation.setOutboxPermanentFailureHandler((c, failure) => {
    const inbox = failure.inbox.href;
    const town = failure.activity.actorId ? c.parseUri(failure.activity.actorId) : null;
    const about = { inbox, town: town?.type === "actor" ? town.identifier : undefined, activity: failure.activity.id?.href };
    if (failure.reason !== "http") {
      c.data.log.warn(about, "fediverse delivery abandoned: the server stayed unreachable; its followers are kept");
      return;
    }
    const removed = removeFollowersAtInbox(c.data.db, inbox, failure.actorIds.map((id) => id.href));
    c.data.log.warn({ ...about, status: failure.statusCode, removed }, "fediverse inbox gone: its followers there removed");
  });
}
