import { z } from "zod";
import { IsoDate, Slug } from "./common.ts";

// SearchResult / SearchResponse of spec section 2.

/** The query syntax's limits (src/core/search/query.ts applies them). */
export const MAX_TERMS = 32;
export const MIN_PREFIX_LENGTH = 2;
/** Ranking policy (applied in src/store/search/queries.ts): how many of the newest matches are ranked ... */
export const RANK_WINDOW = 50;
/** ... and how much more a match in the subject counts than one in the text. */
export const SUBJECT_WEIGHT = 3;

export const SearchResult = z.object({
  slug: Slug,
  city: z.string(),
  state: z.string().meta({ description: "Full state name" }),
  date: IsoDate.meta({ description: "The edition's date, in the city's own timezone" }),
  subject: z.string().meta({ description: "The edition's subject line (plain text)" }),
  snippet: z.string().meta({
    description: "The passage around the best match, as HTML: text is escaped and the only markup is `<mark>` around matched terms. A leading or trailing `…` marks a cut.",
    examples: ["… Sunrise at 7:03 AM. The <mark>farmers market</mark> moves indoors on Saturday …"],
  }),
}).meta({ id: "SearchResult" });

export const SearchResponse = z.object({
  query: z.string().meta({ description: "The `q` parameter, exactly as sent" }),
  results: z.array(SearchResult).meta({ description: "At most `limit` editions, most relevant first; among equally relevant ones, newest first" }),
  total: z.int().meta({ description: "How many editions match in all (not just this page)" }),
}).meta({ id: "SearchResponse" });

export type SearchResult = z.infer<typeof SearchResult>;
export type SearchResponse = z.infer<typeof SearchResponse>;
