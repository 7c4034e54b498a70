import { markEditionsToPost } from "../../store/fediverse/posts.ts";
import type { AppContext } from "../platform/context.ts";

// Apart from posts.ts, which sends (and loads the federation library): the morning only marks.

/**
 * The morning's one call: the editions just published are marked to be posted to their towns'
 * fediverse followers (one statement; towns without followers are skipped in it). Nothing is sent
 * here: the server's worker (worker.ts) posts them, so the morning never waits on a remote server.
 */
export function queueEditionPosts(ctx: AppContext, editionIds: readonly number[], at: string): number {
  try {
    return markEditionsToPost(ctx.db, editionIds, at);
  } catch (err) {
    // The morning goes on: its editions are on the site and in the mail whatever happens here.
    ctx.log.error({ err, editions: editionIds.length }, "marking editions for the fediverse failed; they are not posted");
    return 0;
  }
}
