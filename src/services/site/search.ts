import type { SearchResponse } from "../../contract/search.ts";
import { AppError } from "../../core/errors.ts";
import { parseSearchQuery } from "../../core/search/query.ts";
import { snippetToHtml } from "../../core/search/text.ts";
import { searchEditions } from "../../store/search/queries.ts";
import { refreshSearchBits, type RefreshOptions, type RefreshResult } from "../../store/search/bits.ts";
import { requireNewsletterTown } from "../places/cities.ts";
import type { AppContext } from "../platform/context.ts";

export interface SearchRequest {
  q: string;
  limit: number;
  slug?: string;
}

/** Archive search, shared by GET /api/search and the MCP `search_archives` tool. */
export function searchArchive(ctx: AppContext, req: SearchRequest): SearchResponse {
  const parsed = parseSearchQuery(req.q);
  if (!parsed.ok) {
    throw new AppError("validation_error", `q: ${parsed.message}`, { issues: [{ path: "q", message: parsed.message }] });
  }
  const place = req.slug === undefined ? undefined : requireNewsletterTown(ctx, req.slug);
  const { total, hits } = searchEditions(ctx.db, parsed.query, { placeGeoid: place?.geoid, limit: req.limit });
  return {
    query: req.q,
    results: hits.map((h) => ({
      slug: h.slug, city: h.city, state: h.state, date: h.date, subject: h.subject, snippet: snippetToHtml(h.snippet),
    })),
    total,
  };
}

/**
 * Brings the search's kept sets up to the newest edition (src/store/search/bits.ts), a step of
 * `step` editions at a time with the event loop free in between, so a server catching up on a
 * large archive keeps answering. Run after each morning's editions are stored and at server start;
 * two at once are safe (each step re-reads the watermark under the write lock).
 */
export async function refreshSearchSets(ctx: AppContext, opts: Omit<RefreshOptions, "maxSteps"> & { signal?: AbortSignal } = {}): Promise<RefreshResult> {
  const total: RefreshResult = { editions: 0, keysAdded: 0, keys: 0, ms: 0 };
  while (!opts.signal?.aborted) {
    const r = refreshSearchBits(ctx.db, { step: 2_000, ...opts, maxSteps: 1 });
    total.editions += r.editions;
    total.keysAdded += r.keysAdded;
    total.keys = r.keys;
    total.ms += r.ms;
    if (r.editions === 0) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (total.editions > 0) ctx.log.info({ ...total, ms: Math.round(total.ms) }, "search sets refreshed");
  return total;
}
