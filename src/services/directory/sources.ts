import { AppError } from "../../core/errors.ts";
import { checkFeedUrl } from "../../integrations/feeds/fetch.ts";
import { addBlock, deleteBlock, deleteRemoval, directoryFeedsBlockedBy, listBlocks, removalsOfPlace, type BlockRow } from "../../store/directory/sources.ts";
import { findCandidate } from "../../store/directory/candidates.ts";
import { deleteTownFeed } from "../../store/sources/feeds.ts";
import { requireTown } from "../places/cities.ts";
import type { AppContext } from "../platform/context.ts";
import { verifyOneCandidate } from "./verify.ts";
import type { CandidateOutcome } from "./candidate-outcome.ts";

// Directory sources as people manage them: staff block a source or a whole host everywhere; a town's
// operator removes a directory source from their town (services/sources/feeds.ts removeFeed records it) and
// may restore it. The town page and /api/city list the town's sources (store/directory/sources.ts townSourceList).

const blockOf = (b: BlockRow) => ({ kind: b.kind, value: b.value, reason: b.reason, createdAt: b.created_at });

/** A host name (`News.Example.com`, or any address on it) or one absolute address, as stored. */
function normalise(kind: "host" | "source", raw: string): string {
  const value = raw.trim();
  if (kind === "source") {
    try {
      return checkFeedUrl(value).href;
    } catch (err) {
      throw new AppError("validation_error", `value: ${(err as Error).message}`);
    }
  }
  const host = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? new URL(value).hostname : value.replace(/\/.*$/, "");
  if (!/^[a-z0-9.-]+\.[a-z0-9-]+$/i.test(host)) throw new AppError("validation_error", `value: "${raw}" is not a host name`);
  return host.toLowerCase().replace(/\.$/, "");
}

export function listDirectoryBlocks(ctx: AppContext) {
  return { blocks: listBlocks(ctx.db).map(blockOf) };
}

/** Blocks a source or host everywhere and removes the directory feeds (every town's) it covers now. */
export function blockDirectorySource(ctx: AppContext, kind: "host" | "source", raw: string, reason: string | null) {
  const value = normalise(kind, raw);
  const block = addBlock(ctx.db, kind, value, reason, ctx.config.now().toISOString());
  let removedFeeds = 0;
  for (const id of directoryFeedsBlockedBy(ctx.db, kind, value)) if (deleteTownFeed(ctx.db, id)) removedFeeds++;
  ctx.log.info({ kind, value, removedFeeds }, "directory source blocked");
  return { block: blockOf(block), removedFeeds };
}

export function unblockDirectorySource(ctx: AppContext, kind: "host" | "source", raw: string) {
  return { unblocked: deleteBlock(ctx.db, kind, normalise(kind, raw)) };
}

/** The directory sources removed from a town (the desk offers to restore them). */
export function removedDirectorySources(ctx: AppContext, slug: string): Array<{ url: string; title: string; removedBy: string; removedAt: string }> {
  const place = requireTown(ctx, slug);
  return removalsOfPlace(ctx.db, place.geoid).map((r) => ({ url: r.url, title: r.title, removedBy: r.removed_by, removedAt: r.removed_at }));
}

/** Restores a removed directory source: the removal is forgotten and its candidate verified again now. */
export async function restoreDirectorySource(ctx: AppContext, slug: string, url: string): Promise<CandidateOutcome | null> {
  const place = requireTown(ctx, slug);
  const removal = deleteRemoval(ctx.db, place.geoid, url);
  if (!removal) throw new AppError("not_found", `${place.name} has no removed directory source ${url}.`);
  const candidate = removal.candidate_id === null ? undefined : findCandidate(ctx.db, removal.candidate_id);
  return candidate ? verifyOneCandidate(ctx, place, candidate) : null;
}
