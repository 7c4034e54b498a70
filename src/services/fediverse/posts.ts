import { duePosts, markPostSent } from "../../store/fediverse/posts.ts";
import type { AppContext } from "../platform/context.ts";
import { editionCreate } from "./dispatchers.ts";
import type { Fediverse } from "./federation.ts";

export { queueEditionPosts } from "./queue-posts.ts";

/** Posts handed to the queue per step of the worker. */
const POSTS_PER_STEP = 50;

/**
 * Hands marked editions to the delivery queue: each as a Create(Article) to its town's followers,
 * one delivery per server where they share an inbox. Returns how many were posted.
 */
export async function postDueEditions(ctx: AppContext, fediverse: Fediverse): Promise<number> {
  const due = duePosts(ctx.db, POSTS_PER_STEP);
  if (due.length === 0) return 0;
  const c = fediverse.federation.createContext(new URL(ctx.config.baseUrl), ctx);
  let posted = 0;
  for (const post of due) {
    const town = { geoid: post.placeGeoid, slug: post.slug, name: post.name, state: post.state };
    try {
      await c.sendActivity({ identifier: town.slug }, "followers", editionCreate(c, town, post), { preferSharedInbox: true });
      markPostSent(ctx.db, post.editionId, new Date().toISOString());
      posted++;
    } catch (err) {
      // Left unsent: the next step tries again.
      ctx.log.error({ err, town: town.slug, date: post.date }, "posting an edition to the fediverse failed; it is tried again");
    }
  }
  return posted;
}
