import { z } from "zod";
import { CACHE, type Operation } from "../operation.ts";

/** The full size of the embedded card (oEmbed `rich`: the consumer reserves exactly the size answered). */
export const EMBED_SIZE = { width: 480, height: 320 } as const;


export const OEmbedResponse = z.object({
  type: z.literal("rich"),
  version: z.literal("1.0"),
  provider_name: z.string().optional(),
  provider_url: z.url().optional(),
  title: z.string().optional().meta({ description: "The city, or the edition's subject and date" }),
  html: z.string().meta({ description: "An `<iframe>` of the page's embeddable card (no site chrome), ready to insert" }),
  width: z.int().meta({ description: `Width of the iframe in pixels: always ${EMBED_SIZE.width} (a fixed size)` }),
  height: z.int().meta({ description: `Height of the iframe in pixels: always ${EMBED_SIZE.height} (a fixed size)` }),
  cache_age: z.int().optional().meta({ description: "Seconds the consumer may cache this answer" }),
}).meta({ id: "OEmbedResponse", description: "oEmbed 1.0 `rich` response" });
export type OEmbedResponse = z.infer<typeof OEmbedResponse>;

const dimension = (name: string) => z.coerce.number().int().min(1).max(10_000).optional().meta({ description: `Accepted and ignored (the card has one fixed size); the ${name} a consumer can show` });

export const oembedOperations = {
  getOEmbed: {
    operationId: "getOEmbed", method: "GET", path: "/api/oembed", tags: ["Embeds"],
    summary: "oEmbed for a city page or a dated edition page",
    description: [
      "oEmbed 1.0 (https://oembed.com) provider endpoint. `url` must be one of our own pages: a city page `{base}/{slug}` or a dated edition page `{base}/{slug}/{YYYY-MM-DD}`; anything else (other paths, other hosts, a city without editions, a date without an edition) is 404 `not_found`.",
      `The answer is a \`rich\` object whose \`html\` is an \`<iframe>\` of the page's embeddable card (\`/embed/{slug}\` or \`/embed/{slug}/{date}\`: a compact card without the site's header and footer) with its \`width\` and \`height\`. The size is fixed at ${EMBED_SIZE.width}x${EMBED_SIZE.height}; \`maxwidth\` and \`maxheight\` are accepted and ignored, as the interface specification documents.`,
      "Only `format=json` is served; `format=xml` is 501 `not_implemented`. Pages advertise this endpoint with `<link rel=\"alternate\" type=\"application/json+oembed\">`.",
    ].join("\n\n"),
    query: z.object({
      url: z.url().max(2000).meta({ description: "The page to embed", examples: ["https://citydaily.example/st-louis-missouri/2026-11-22"] }),
      format: z.enum(["json", "xml"]).default("json").meta({ description: "`json` (default); `xml` is not implemented (501)" }),
      maxwidth: dimension("width"),
      maxheight: dimension("height"),
    }),
    response: OEmbedResponse,
    errors: ["validation_error", "not_found", "not_implemented"],
    cache: CACHE.live,
  },
} satisfies Record<string, Operation>;
