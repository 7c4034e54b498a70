import { z } from "zod";
import { MAX_TERMS, MIN_PREFIX_LENGTH, RANK_WINDOW, SUBJECT_WEIGHT } from "../search.ts";
import { Slug } from "../common.ts";
import { CACHE, READ_ONLY, type Operation } from "../operation.ts";
import { SearchResponse } from "../search.ts";

/** The query syntax, shared by the OpenAPI description, the developers page and MCP. */
// Blank lines around the list: markdown readers (and markdownlint's MD032) want a list set apart.
const SYNTAX = [
  "Query syntax (`q`):",
  "",
  "- `rain wind`: editions with **all** the words (case and accents are ignored: `cafe` finds `Café`).",
  "- `\"partly cloudy\"`: the exact phrase.",
  "- `rain OR snow`: either term. `OR` (upper case) joins the terms on each side and binds tighter than the spaces: `flood OR storm warning` is (flood or storm) and warning. An `OR` without a term on both sides is read as the word \"or\".",
  "- `-rain` (or `NOT rain`): editions without the term; also `-\"heavy rain\"`. A query needs at least one term that is not excluded.",
  `- \`sun*\`: words starting with \`sun\` (sunrise, sunset, Sunday); at least ${MIN_PREFIX_LENGTH} letters before the \`*\`. Works at the end of a phrase too: \`"farmers mar"*\`.`,
  "",
  "Other punctuation separates words (`covid-19` is the phrase \"covid 19\"); an unclosed quote is ignored. At most " + MAX_TERMS + " terms.",
].join("\n");

const UNSEARCHABLE = "A query that cannot be searched (nothing but punctuation, only excluded terms, `a*`) is";
/** The syntax in short, as search_archives' `q` argument says it in tools/list. */
const SYNTAX_MCP = `The search, 2 to 200 characters: words (all must match; case and accents ignored), "an exact phrase", \`rain OR snow\`, \`-rain\` or \`NOT rain\` to exclude, \`sun*\` for words that start so (at least ${MIN_PREFIX_LENGTH} letters before the \`*\`); at most ${MAX_TERMS} terms`;

/** The syntax as HTTP clients read it (OpenAPI, the developers page). */
export const SEARCH_SYNTAX = `${SYNTAX}\n${UNSEARCHABLE} 400 \`validation_error\` whose \`issues[]\` says what is wrong.`;

export const searchOperations = {
  searchArchive: {
    operationId: "searchArchive", method: "GET", path: "/api/search", tags: ["Editions"],
    summary: "Full-text search over archived editions",
    description: [
      "Searches the subject and text of every published edition, or of one city's with `slug`.",
      SEARCH_SYNTAX,
      `Results are ranked by relevance (BM25 term frequency with length normalisation; a match in the subject counts ${SUBJECT_WEIGHT} times one in the text), newest first among equals. When more than ${RANK_WINDOW} editions match, the ${RANK_WINDOW} newest of them are ranked, so a common word brings this season's editions rather than the archive's oldest; \`total\` still counts every match. Each result has a \`snippet\`: the passage around the best match, HTML-escaped, with \`<mark>\` around the matched terms and no other markup.`,
      "The index is updated in the same transaction that stores each morning's editions, so a search never sees half a morning.",
    ].join("\n\n"),
    query: z.object({
      q: z.string().min(2).max(200).meta({ description: "The search, 2 to 200 characters (syntax above)", examples: ["\"farmers market\" -rain"] }),
      limit: z.coerce.number().int().min(1).max(50).default(10).meta({ description: "Results per response, 1 to 50" }),
      slug: Slug.optional().meta({ description: "Only this city's editions (its slug)" }),
    }),
    response: SearchResponse,
    errors: ["validation_error", "city_not_found"],
    cache: CACHE.live,
    mcp: {
      tool: "search_archives", title: "Search the archive of editions", annotations: READ_ONLY,
      input: { describe: { q: SYNTAX_MCP } },
      description: "Full-text search of the published editions, every town's or one town's with `slug`, best match first, each result with the `date` to read with get_archive and a `snippet` that marks the matches with `<mark>`.",
    },
  },
} satisfies Record<string, Operation>;
