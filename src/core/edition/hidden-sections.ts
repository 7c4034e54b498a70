import type { SectionKey } from "../../contract/preferences.ts";
import { WEEKLY_HEADLINES_HEADING } from "./weekly.ts";

// A reader's copy of an edition without the sections they hid. The edition is stored once, as HTML
// rendered from its markdown (src/core/edition/render-html.ts): each section a reader may hide is a
// heading and one block after it (a paragraph or a list), and the air-quality line is a paragraph of
// the weather section. Pure; the sender runs it once per edition and set of hidden sections.

/** The heading each hideable section has in a stored edition (src/core/edition/compose.ts, sections.ts) or weekly. */
const HEADINGS: Record<string, SectionKey> = {
  "Holidays and observances": "holidays",
  "Did you know?": "did-you-know",
  "Sun": "sun",
  "From the archive": "archive",
  "Local headlines": "headlines",
  "More local headlines": "headlines",
  [WEEKLY_HEADLINES_HEADING]: "headlines",
};

const SECTION = /<h2>([^<]*)<\/h2>\s*<(p|ul)>[\s\S]*?<\/\2>\n?/g;
/** Good and moderate air (no advice): unhealthy air is never hidden. */
const CALM_AIR = /<p>Air quality: \d+, (?:good|moderate)[.;][^<]*<\/p>\n?/g;

export function withoutSections(html: string, hidden: readonly SectionKey[]): string {
  if (hidden.length === 0) return html;
  const set = new Set(hidden);
  let out = html.replace(SECTION, (whole, heading: string) => {
    const key = HEADINGS[heading];
    return key && set.has(key) ? "" : whole;
  });
  if (set.has("air-quality")) out = out.replace(CALM_AIR, "");
  return out;
}
