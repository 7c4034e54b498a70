import { STATES } from "./states.ts";

/**
 * The one slug function. `{city}-{state-name}`: ASCII-folded, lowercased, apostrophes and periods
 * dropped, every other run of non-alphanumerics becomes one hyphen.
 *   "Cañon City", "Colorado"  -> "canon-city-colorado"
 *   "St. Louis", "Missouri"   -> "st-louis-missouri"
 *   "Coeur d'Alene", "Idaho"  -> "coeur-dalene-idaho"
 */
export function slugify(...parts: string[]): string {
  return parts.map(slugPart).filter(Boolean).join("-");
}

// Letters that NFKD does not decompose into ASCII + combining marks.
const SPECIAL: Record<string, string> = { ß: "ss", æ: "ae", Æ: "ae", ø: "o", Ø: "o", ł: "l", Ł: "l", đ: "d", Đ: "d", œ: "oe", Œ: "oe", ı: "i" };

function slugPart(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[ßæÆøØłŁđĐœŒı]/g, (c) => SPECIAL[c] ?? "")
    .toLowerCase()
    .replace(/['’ʻʼ`.]/g, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

export const STATE_SLUGS: ReadonlyArray<string> = STATES.map((s) => slugPart(s.name));
const SLUG_SHAPE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MAX_SLUG_LENGTH = 120;

/** Well-formed: lowercase words joined by single hyphens, ending in a full state name after a city part. */
export function isWellFormedSlug(slug: string): boolean {
  if (slug.length > MAX_SLUG_LENGTH || !SLUG_SHAPE.test(slug)) return false;
  return STATE_SLUGS.some((s) => slug.endsWith(`-${s}`) && slug.length > s.length + 1);
}

export interface SluggablePlace {
  geoid: string;
  name: string;
  stateName: string;
  countyName: string | null;
  placeType: string;
  population: number | null;
}

/**
 * Assigns every place a unique slug. Places whose `{city}-{state}` collide (216 name groups in the
 * dataset, e.g. two Kailuas in Hawaii) are ranked by population (then GEOID): the largest keeps the
 * plain slug, each other one gets its county inserted (`kailua-hawaii-county-hawaii`), then its place
 * type, then its GEOID, whichever first makes it unique. Deterministic for a given dataset.
 */
export function assignSlugs(places: ReadonlyArray<SluggablePlace>): Map<string, string> {
  const groups = new Map<string, SluggablePlace[]>();
  for (const p of places) {
    const base = slugify(p.name, p.stateName);
    const group = groups.get(base);
    if (group) group.push(p);
    else groups.set(base, [p]);
  }
  const taken = new Set(groups.keys());
  const result = new Map<string, string>();
  for (const [base, group] of groups) {
    group.sort((a, b) => (b.population ?? -1) - (a.population ?? -1) || a.geoid.localeCompare(b.geoid));
    result.set(group[0].geoid, base);
    for (const p of group.slice(1)) {
      const candidates = [
        p.countyName ? slugify(p.name, p.countyName, p.stateName) : undefined,
        p.countyName ? slugify(p.name, p.countyName, p.placeType, p.stateName) : undefined,
        slugify(p.name, p.placeType, p.stateName),
        slugify(p.name, p.geoid, p.stateName),
      ];
      const slug = candidates.find((c) => c !== undefined && !taken.has(c)) ?? slugify(p.name, p.geoid, p.stateName);
      taken.add(slug);
      result.set(p.geoid, slug);
    }
  }
  return result;
}
