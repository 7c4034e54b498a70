import { blockedInstances, blockInstance, unblockInstance, type BlockedInstance } from "../../store/fediverse/followers.ts";
import type { AppContext } from "../platform/context.ts";

// The instances staff refused (`npm run admin -- fediverse block HOST`): a Follow from one gets a
// Reject, and its followers are removed at once, so no edition goes there again.

/** A server's host as a block names it: lower case, the port kept (`mastodon.example`, `127.0.0.1:8080`). */
export function instanceHost(raw: string): string {
  const trimmed = raw.trim().toLowerCase();
  try {
    return new URL(/^https?:\/\//.test(trimmed) ? trimmed : `https://${trimmed}`).host;
  } catch {
    return trimmed;
  }
}

export function blockFediverseInstance(ctx: AppContext, host: string, reason: string | null): { host: string; removedFollowers: number } {
  const h = instanceHost(host);
  return { host: h, removedFollowers: blockInstance(ctx.db, h, reason, new Date().toISOString()) };
}

export function unblockFediverseInstance(ctx: AppContext, host: string): boolean {
  return unblockInstance(ctx.db, instanceHost(host));
}

export function fediverseBlocks(ctx: AppContext): BlockedInstance[] {
  return blockedInstances(ctx.db);
}
