import type { SearchResponse } from "../contract/search.ts";
import { AppError } from "../core/errors.ts";
import { parseSearchQuery } from "../core/search-query.ts";
import { snippetToHtml } from "../core/search-text.ts";
import { searchEditions } from "../store/search.ts";
import { requireCity } from "./cities.ts";
import type { AppContext } from "./context.ts";

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
  const place = req.slug === undefined ? undefined : requireCity(ctx, req.slug);
  const { total, hits } = searchEditions(ctx.db, parsed.query, { placeGeoid: place?.geoid, limit: req.limit });
  return {
    query: req.q,
    results: hits.map((h) => ({
      slug: h.slug, city: h.city, state: h.state, date: h.date, subject: h.subject, snippet: snippetToHtml(h.snippet),
    })),
    total,
  };
}
