import type { z } from "zod";
import type { ProblemCode } from "./problems.ts";

/**
 * Write limiters kept on the context (`ctx.limits`); each operation names the one it takes from
 * (the OAuth ones are taken by the authorization server's routes, api/routes/oauth/routes.ts).
 */
export type LimiterName = "subscribe" | "checkout" | "operatorSignIn" | "oauthRegister" | "oauthToken" | "oauthClientDocument";

/** How an operation appears as an MCP tool (the MCP server iterates the operations that have one). */
export interface McpProjection {
  /** Tool name, snake_case. */
  tool: string;
  title: string;
  /** What the model is told; defaults to the operation's summary and description. */
  description?: string;
  /** Hints that tell the truth about the tool's effects (MCP `ToolAnnotations`). */
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  /** `json` (default): `structuredContent` plus the JSON as text; `markdown`: the markdown form as text. */
  output?: "json" | "markdown";
  /**
   * The tool's own choice of the operation's fields: `omit` keeps fields out of the tool (a web
   * form's fields: honeypot, attribution), `optional` makes required ones optional (the service
   * then works without them). Default: every field as the operation has it.
   */
  input?: {
    omit?: readonly string[];
    optional?: readonly string[];
    /** A field's meaning as the tool says it in `tools/list`, where the contract's (shared with OpenAPI) speaks HTTP or needs more. */
    describe?: Readonly<Record<string, string>>;
  };
  /** An MCP Apps view (SEP-1865) that renders the tool's result: its `ui://` resource URI. */
  ui?: string;
}

/**
 * One operation: the single description from which HTTP validates input and applies auth, rate
 * limits and caching, the OpenAPI document is generated, and MCP tools take their schemas. Paths are
 * written OpenAPI-style; those under /api also answer under /api/v1. Its service is bound once, in
 * src/services/operations/bindings.ts.
 */
export interface Operation {
  operationId: string;
  /** `DELETE` removes the resource the path names (its answer says what was removed); `PATCH` changes some of its fields. */
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** The 200 response body. */
  response: z.ZodType;
  /** The path's last parameter may end in `.md` (or the request may accept `text/markdown`) for a markdown twin. */
  markdownVariant?: boolean;
  /** Problem codes this endpoint can answer with, besides the general ones. */
  errors: ProblemCode[];
  /** `Cache-Control` of a successful response (a service may choose another per answer). */
  cache: string;
  /** `admin` needs `Authorization: Bearer ADMIN_TOKEN` over HTTP and is never an MCP tool. Default `public`. */
  auth?: "public" | "admin";
  /** The limiter a call takes one token from before its input is read (HTTP and MCP alike). */
  rateLimit?: LimiterName;
  /** `internal` operations stay out of OpenAPI, the developer docs and MCP. Default `public`. */
  visibility?: "public" | "internal";
  /** The operation as an MCP tool; without it, MCP does not offer the operation. */
  mcp?: McpProjection;
  /**
   * A creating write that takes an idempotency key (`Idempotency-Key` header, the MCP tool's
   * `idempotencyKey` argument): the same key and input answer the first answer for 24 hours
   * (src/services/operations/run-once.ts).
   */
  idempotent?: boolean;
}

/** The annotations of a tool that only reads this service's own data. */
export const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/** Shared cache policies: reads are public so a CDN can hold them. */
export const CACHE = {
  cities: "public, max-age=300, s-maxage=3600",
  live: "public, max-age=60, s-maxage=300",
  archive: "public, max-age=3600, s-maxage=86400",
  none: "no-store",
} as const;

/** How long an idempotency key holds its first answer. */
export const IDEMPOTENCY_TTL_HOURS = 24;

/** What a creating write's description says about its idempotency key, over HTTP. */
export const IDEMPOTENCY_HTTP = `Safe to retry: send an \`Idempotency-Key\` header (1 to 255 visible ASCII characters, e.g. a new UUID per intended request). The same key with the same body answers the first answer (the same order and payment link) for ${IDEMPOTENCY_TTL_HOURS} hours, with \`Idempotent-Replayed: true\`; the same key with a different body is \`422 idempotency_key_reused\`; a request arriving while the first with its key still runs waits for it (or, after 10 seconds, \`409 idempotency_in_progress\` with \`Retry-After\`). Failures are not kept: retrying a failed request with its key runs it again.`;

/** The same, as a tool's `idempotencyKey` argument says it. */
export const IDEMPOTENCY_MCP = `A new UUID per intended request: calling again with the same key and arguments answers the first call's result for ${IDEMPOTENCY_TTL_HOURS} hours instead of acting twice`;

/** Largest accepted request body, in bytes (413 `payload_too_large` beyond it). */
export const BODY_LIMIT_BYTES = 16 * 1024;

/** The operation's whole input as one object (path, query and body fields), as MCP tools take it. */
export type OperationInput<Op extends Operation> =
  (Op["params"] extends z.ZodObject ? z.output<Op["params"]> : unknown)
  & (Op["query"] extends z.ZodObject ? z.output<Op["query"]> : unknown)
  & (Op["body"] extends z.ZodType ? z.output<Op["body"]> : unknown);

export type OperationOutput<Op extends Operation> = z.output<Op["response"]>;

export const isPublic = (op: Operation) => (op.visibility ?? "public") === "public";
