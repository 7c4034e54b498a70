import { blockedInstances, blockInstance, unblockInstance, type BlockedInstance } from "../../store/fediverse/followers.ts";
import { blockCovers, instanceHost } from "../../core/fediverse/hosts.ts";
import type { AppContext } from "../platform/context.ts";

// The instances staff refused (`npm run admin -- fediverse block HOST`): a Follow from one gets a
// Reject, and its followers are removed at once, so no edition goes there again. A host is written
// one way (core/fediverse/hosts.ts), so `Host.`, `HOST` or `host:443` is the same block; a block of
// a name covers its other ports and its subdomains.

export function blockFediverseInstance(ctx: AppContext, host: string, reason: string | null): { host: string; removedFollowers: number } {
  const h = instanceHost(host);
  return { host: h, removedFollowers: blockInstance(ctx.db, h, reason, new Date().toISOString(), (follower) => blockCovers(h, instanceHost(follower))) };
}

export function unblockFediverseInstance(ctx: AppContext, host: string): boolean {
  return unblockInstance(ctx.db, instanceHost(host));
}

export function fediverseBlocks(ctx: AppContext): BlockedInstance[] {
  return blockedInstances(ctx.db);
}
