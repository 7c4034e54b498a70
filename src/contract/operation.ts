import type { z } from "zod";
import type { ProblemCode } from "./problems.ts";

/**
 * One API endpoint: the single description from which the h3 routes validate input, the OpenAPI
 * document is generated, and MCP tools take their input schemas. Paths are written OpenAPI-style;
 * each also answers under /api/v1.
 */
export interface Operation {
  operationId: string;
  method: "GET" | "POST";
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** The 200 response body. */
  response: z.ZodType;
  /** The path's last parameter may end in `.md` for a `text/markdown` twin of the response. */
  markdownVariant?: boolean;
  /** Problem codes this endpoint can answer with, besides the general ones. */
  errors: ProblemCode[];
  /** `Cache-Control` of a successful response. */
  cache: string;
}

/** Shared cache policies: reads are public so a CDN can hold them. */
export const CACHE = {
  cities: "public, max-age=300, s-maxage=3600",
  live: "public, max-age=60, s-maxage=300",
  archive: "public, max-age=3600, s-maxage=86400",
  none: "no-store",
} as const;

/** Largest accepted request body, in bytes (413 `payload_too_large` beyond it). */
export const BODY_LIMIT_BYTES = 16 * 1024;
