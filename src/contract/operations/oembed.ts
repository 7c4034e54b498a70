import { z } from "zod";
import { CACHE, type Operation } from "../operation.ts";

/** The full size of the embedded card (oEmbed `rich`: the consumer reserves exactly the size answered). */
export const EMBED_SIZE = { width: 480, height: 320 } as const;

/** The sizes the card is drawn at, largest first: the answer is the largest within `maxwidth` and `maxheight`. */
export const EMBED_SIZES = [EMBED_SIZE, { width: 400, height: 300 }, { width: 320, height: 280 }] as const;

export const OEmbedResponse = z.object({
  type: z.literal("rich"),
  version: z.literal("1.0"),
  provider_name: z.string().optional(),
  provider_url: z.url().optional(),
  title: z.string().optional().meta({ description: "The city, or the edition's subject and date" }),
  html: z.string().meta({ description: "An `<iframe>` of the page's embeddable card (no site chrome), ready to insert" }),
  width: z.int().meta({ description: `Width of the iframe in pixels: ${EMBED_SIZE.width}, or the largest of ${EMBED_SIZES.map((s) => s.width).join(", ")} within \`maxwidth\`` }),
  height: z.int().meta({ description: `Height of the iframe in pixels: ${EMBED_SIZE.height}, or the one that goes with the width, within \`maxheight\`` }),
  cache_age: z.int().optional().meta({ description: "Seconds the consumer may cache this answer" }),
}).meta({ id: "OEmbedResponse", description: "oEmbed 1.0 `rich` response" });
export type OEmbedResponse = z.infer<typeof OEmbedResponse>;

const dimension = (name: string) => z.coerce.number().int().min(1).max(10_000).optional().meta({ description: `Largest ${name} the consumer can show, in pixels: the answer's ${name} never exceeds it` });

export const oembedOperations = {
  getOEmbed: {
    operationId: "getOEmbed", method: "GET", path: "/api/oembed", tags: ["Embeds"],
    summary: "oEmbed for a city page or a dated edition page",
    description: [
      "oEmbed 1.0 (https://oembed.com) provider endpoint. `url` must be one of our own pages: a city page `{base}/{slug}` or a dated edition page `{base}/{slug}/{YYYY-MM-DD}`; anything else (other paths, other hosts, a city without editions, a date without an edition) is 404 `not_found`.",
      `The answer is a \`rich\` object whose \`html\` is an \`<iframe>\` of the page's embeddable card (\`/embed/{slug}\` or \`/embed/{slug}/{date}\`: a compact card without the site's header and footer) with its \`width\` and \`height\`. The card is drawn at ${EMBED_SIZES.map((s) => `${s.width}x${s.height}`).join(", ")}: the answer is the largest that fits \`maxwidth\` and \`maxheight\` (oEmbed: the embed must not exceed them); when none fits, 404 \`not_found\`.`,
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
