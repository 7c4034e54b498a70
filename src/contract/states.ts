/** The 50 states, DC and Puerto Rico: the places dataset covers exactly these. */
export const STATES: ReadonlyArray<{ name: string; code: string }> = [
  ["Alabama", "AL"], ["Alaska", "AK"], ["Arizona", "AZ"], ["Arkansas", "AR"], ["California", "CA"],
  ["Colorado", "CO"], ["Connecticut", "CT"], ["Delaware", "DE"], ["District of Columbia", "DC"],
  ["Florida", "FL"], ["Georgia", "GA"], ["Hawaii", "HI"], ["Idaho", "ID"], ["Illinois", "IL"],
  ["Indiana", "IN"], ["Iowa", "IA"], ["Kansas", "KS"], ["Kentucky", "KY"], ["Louisiana", "LA"],
  ["Maine", "ME"], ["Maryland", "MD"], ["Massachusetts", "MA"], ["Michigan", "MI"], ["Minnesota", "MN"],
  ["Mississippi", "MS"], ["Missouri", "MO"], ["Montana", "MT"], ["Nebraska", "NE"], ["Nevada", "NV"],
  ["New Hampshire", "NH"], ["New Jersey", "NJ"], ["New Mexico", "NM"], ["New York", "NY"],
  ["North Carolina", "NC"], ["North Dakota", "ND"], ["Ohio", "OH"], ["Oklahoma", "OK"], ["Oregon", "OR"],
  ["Pennsylvania", "PA"], ["Puerto Rico", "PR"], ["Rhode Island", "RI"], ["South Carolina", "SC"],
  ["South Dakota", "SD"], ["Tennessee", "TN"], ["Texas", "TX"], ["Utah", "UT"], ["Vermont", "VT"],
  ["Virginia", "VA"], ["Washington", "WA"], ["West Virginia", "WV"], ["Wisconsin", "WI"], ["Wyoming", "WY"],
].map(([name, code]) => ({ name, code }));

const byLowerName = new Map(STATES.map((s) => [s.name.toLowerCase(), s]));

/** The canonical full state name for a case-insensitive full name, or undefined. */
export function canonicalStateName(name: string): string | undefined {
  return byLowerName.get(name.trim().toLowerCase())?.name;
}

/** Not states: the District of Columbia and Puerto Rico are counted apart from the 50. */
const NOT_STATES = new Set(["District of Columbia", "Puerto Rico"]);

/**
 * How a set of state names is counted in prose: "12 states", "12 states and D.C.",
 * "12 states, D.C. and Puerto Rico", "Puerto Rico" alone. D.C. and Puerto Rico are never "states".
 */
export function statesPhrase(names: Iterable<string>): string {
  const all = new Set(names);
  const states = [...all].filter((n) => !NOT_STATES.has(n)).length;
  const others = [all.has("District of Columbia") && "D.C.", all.has("Puerto Rico") && "Puerto Rico"].filter((x): x is string => Boolean(x));
  const parts = [...(states ? [`${states} ${states === 1 ? "state" : "states"}`] : []), ...others];
  if (parts.length === 0) return "no state";
  return parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`;
}

/** Whether a name from STATES is one of the 50 states (not D.C. or Puerto Rico). */
export const isState = (name: string): boolean => !NOT_STATES.has(name);
