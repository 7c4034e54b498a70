// The keys the town directory compares names by: a state's code, a place's or county's name. Pure.
import { STATES } from "../../contract/states.ts";

const STATE_CODE_BY_NAME = new Map(STATES.map((s) => [s.name.toLowerCase(), s.code]));
const STATE_CODES = new Set(STATES.map((s) => s.code));

/** A state's two-letter code from its code or full name (any case), or null. */
export function stateCode(raw: string | null | undefined): string | null {
  const s = (raw ?? "").trim();
  if (STATE_CODES.has(s.toUpperCase()) && s.length === 2) return s.toUpperCase();
  return STATE_CODE_BY_NAME.get(s.toLowerCase()) ?? null;
}

/**
 * The key names are compared by: no accents, lower case, punctuation as spaces, "Saint"/"St.",
 * "Mount"/"Mt." and "Fort"/"Ft." alike ("Cañon City" = "Canon City", "St. Johns" = "Saint Johns").
 */
export function nameKey(name: string): string {
  return name
    .normalize("NFD").replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/&/g, " and ")
    .replace(/['’`]/g, "")
    .replace(/[^a-z0-9]+/g, " ")
    .trim()
    .replace(/\b(saint|ste?)\b/g, "st")
    .replace(/\b(mount|mt)\b/g, "mt")
    .replace(/\b(fort|ft)\b/g, "ft");
}
