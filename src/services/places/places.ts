import type { PlacesResponse } from "../../contract/places.ts";
import { createPlaceIndex } from "../../site/place-index.ts";
import { findPlaces } from "../../site/place-ranking.js";
import { listNewsletterTowns, newsletterSlugs } from "../../store/places/cities.ts";
import { connectionCache } from "../../store/db.ts";
import { leasedSlugs } from "../../store/commerce/leases.ts";
import type { AppContext } from "../platform/context.ts";

/**
 * find_place (GET /api/places?q=): the site's place finder on the server, with the very index and
 * ranking the browser uses (src/site/place-index.ts, src/site/place-ranking.js), so the no-JS page
 * (/places), agents and readers with JavaScript see the same towns in the same order. The index of
 * the 32,000 places is built once per database connection, on the first search.
 */
export const placeIndex = (ctx: AppContext) => connectionCache(ctx.db, "place-finder-index", () => createPlaceIndex(ctx.db));

export function findPlace(ctx: AppContext, input: { q: string; limit: number }): PlacesResponse {
  const index = placeIndex(ctx);
  const found = findPlaces(index, input.q, input.limit);
  const slugs = found.map((p) => p.slug);
  const tracked = newsletterSlugs(ctx.db, slugs);
  const leased = leasedSlugs(ctx.db, slugs, ctx.config.now().toISOString());
  return {
    query: input.q,
    results: found.map((p) => ({
      slug: p.slug, name: p.name, state: p.state, ...(p.county ? { county: p.county } : {}),
      population: Number(p.population ?? 0), hasNewsletter: tracked.has(p.slug), sellsListings: tracked.has(p.slug) || leased.has(p.slug), url: `${ctx.config.baseUrl}/${p.slug}`,
    })),
  };
}

/**
 * `completion/complete` of a `slug` argument: the slugs that begin with what was typed, else the
 * place finder's matches for it read as words ("st-lou" as "st lou"); nothing typed, the cities
 * with a newsletter. At most 20 (MCP allows 100 a response).
 */
export function completeSlug(ctx: AppContext, typed: string): string[] {
  const value = typed.trim().toLowerCase();
  if (value.length < 2) return listNewsletterTowns(ctx.db).map((c) => c.slug).slice(0, 20);
  const found = findPlaces(placeIndex(ctx), value.replace(/-/g, " "), 40).map((p) => p.slug);
  const starting = found.filter((s) => s.startsWith(value));
  return [...new Set([...starting, ...found])].slice(0, 20);
}
