// The town directory from every dataset's candidates: one per place, kind and site. Pure.
import { siteKey } from "./addresses.ts";
import type { NewCandidate } from "./candidate.ts";

/**
 * One candidate per place, kind and site: a town source wins over the same site as a county source,
 * otherwise the first (datasets in DATASETS order) wins; a .gov domain that is the place's government
 * website already is not repeated.
 */
export function mergeCandidates(all: Iterable<NewCandidate>): NewCandidate[] {
  const kept = new Map<string, NewCandidate>();
  const governmentSites = new Set<string>();
  // The same outlet reaches every place of its county: each address is parsed once.
  const keys = new Map<string, { host: string; site: string }>();
  const keyOf = (url: string) => {
    let k = keys.get(url);
    if (!k) keys.set(url, (k = { host: new URL(url).hostname.replace(/^www\./, ""), site: siteKey(url) }));
    return k;
  };
  const list = [...all];
  for (const c of list) if (c.kind === "government") governmentSites.add(`${c.placeGeoid}|${keyOf(c.url).host}`);
  for (const c of list) {
    if (c.kind === "gov_domain" && governmentSites.has(`${c.placeGeoid}|${keyOf(c.url).host}`)) continue;
    const key = `${c.placeGeoid}|${c.kind}|${keyOf(c.url).site}`;
    const had = kept.get(key);
    if (!had || (had.scope === "county" && c.scope === "town")) kept.set(key, c);
  }
  return [...kept.values()];
}
