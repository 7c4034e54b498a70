// The place finder's ranking, shared by the browser's "find your town" box (src/site/place-finder.js,
// served as /place-ranking.js) and the server's find_place operation (src/services/places/places.ts), so a
// reader with or without JavaScript and an agent get the same towns in the same order. Plain ES
// module with no imports: it runs as it is in both.

/** Accents off, lower case: how names are indexed (src/site/place-index.ts) and queries are read. */
export function fold(text) {
  return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
}

/** Edit distance counting a swap of two neighbours as one typo ("Tuscon"), as readers make them. */
function distance(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * How far a typed word is from a name's word: nothing when the name's word goes on from it
 * ("pittsburg" in "pittsburgh"), else its typos, a misspelt beginning counting one more than a
 * misspelt whole word (so "Tuscon" is Tucson before Tuscola).
 */
function closeness(typed, word) {
  if (word.startsWith(typed)) return 0;
  return Math.min(distance(typed, word), distance(typed, word.slice(0, typed.length)) + 1);
}

const typoBudget = (term) => (term.length <= 3 ? 0 : term.length <= 5 ? 1 : 2);

/**
 * Places matching what was typed, best first. Minisearch finds the candidates (prefix and
 * typo-tolerant; a name's letters run together are indexed too, so "Sanfrancisco" finds San
 * Francisco); they are then ranked by how few letters the reader got wrong, and among equally
 * close names by population. Minisearch's own score would put a rare misspelt-by-two name
 * ("Brackenridge") before a common one misspelt by one ("Breckenridge"), since rarity weighs more
 * than distance in its formula, and would bury Pittsburgh under every smaller exact "Pittsburg".
 */
export function findPlaces(index, query, limit = 8) {
  const q = fold(query.trim());
  if (q.length < 2) return [];
  const candidates = index.search(q, { prefix: true, fuzzy: typoBudget, combineWith: "AND" }).slice(0, 400);
  const ranked = candidates.map((r) => {
    // A word found only in the state's name ("york" for Buffalo, New York) counts half a typo.
    const cost = (t, w) => closeness(t, w) + (r.match[w]?.some((f) => f !== "s") ? 0 : 0.5);
    const off = r.queryTerms.reduce((sum, t) => sum + Math.min(...r.terms.map((w) => cost(t, w))), 0);
    return { r, off };
  });
  ranked.sort((a, b) => a.off - b.off || Number(b.r.population ?? 0) - Number(a.r.population ?? 0) || b.r.score - a.r.score);
  return ranked.slice(0, limit).map(({ r }) => ({ slug: r.id, name: r.name, state: r.state, county: r.county, population: r.population }));
}
