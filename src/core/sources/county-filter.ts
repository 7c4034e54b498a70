// A county-wide outlet (the county paper, the county government) covers many towns: a town's edition
// shows only its items that name the town. Pure, so the rule is tested with real-looking headlines.

/** Words that make "East Ely" or "New Hope" another place than "Ely" or "Hope". */
const OTHER_PLACE_BEFORE = ["east", "west", "north", "south", "new", "old", "port", "fort", "lake", "little", "upper", "lower"];

const VARIANTS: Array<[RegExp, string]> = [
  [/^(St\.?|Saint)$/i, "(?:St\\.?|Saint)"],
  [/^(Ste\.?|Sainte)$/i, "(?:Ste\\.?|Sainte)"],
  [/^(Mt\.?|Mount)$/i, "(?:Mt\\.?|Mount)"],
  [/^(Ft\.?|Fort)$/i, "(?:Ft\\.?|Fort)"],
];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * One word of the name as it must appear: its first letter as the name writes it (a capital: "Hope"
 * the town, not "hope" the word), the rest in any case ("ELY" in a shouted headline).
 */
function wordPattern(word: string): string {
  for (const [test, pattern] of VARIANTS) if (test.test(word)) return pattern;
  const [first, ...rest] = [...word];
  if (!first) return "";
  // Papers write "St. Mary's" with a straight or a curly apostrophe.
  const restPattern = rest.map((c) => (/\p{L}/u.test(c) ? `[${escape(c.toLowerCase())}${escape(c.toUpperCase())}]` : /['’]/.test(c) ? "['’]" : escape(c))).join("");
  return `${escape(first)}${restPattern}`;
}

/** A matcher for the town's name as a whole word or phrase ("Ely" in "Ely council", not in "Elyria" nor "East Ely"). */
export function townNameMatcher(townName: string): (text: string) => boolean {
  const words = townName.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return () => false;
  const phrase = words.map(wordPattern).join("[\\s-]+");
  // Not inside a longer word, and not the tail of another place's name ("West Ely").
  const notAfter = OTHER_PLACE_BEFORE.filter((w) => !words[0]!.toLowerCase().startsWith(w)).map((w) => `(?<!\\b${w[0]!.toUpperCase()}${w.slice(1)}\\s)(?<!\\b${w}\\s)`).join("");
  const re = new RegExp(`(?<![\\p{L}\\p{N}])${notAfter}${phrase}(?![\\p{L}\\p{N}])`, "u");
  return (text) => re.test(text);
}

/** The items of a county-wide source that name the town in their title (or summary, when kept). */
export function itemsNamingTown<T extends { title: string; summary?: string | null }>(items: T[], townName: string): T[] {
  const names = townNameMatcher(townName);
  return items.filter((i) => names(i.title) || (i.summary ? names(i.summary) : false));
}
