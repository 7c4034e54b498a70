import { registerAppTool } from "@modelcontextprotocol/ext-apps/server";
import type { CallToolResult, McpServer, StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import { z } from "zod";
import { IdempotencyKey } from "../contract/common.ts";
import { CACHE, IDEMPOTENCY_MCP, type Operation } from "../contract/operation.ts";
import { operations } from "../contract/operations/index.ts";
import { problemBody } from "../contract/problems.ts";
import { AppError, storageFullError, toFieldIssues, type FieldIssue } from "../core/errors.ts";
import { isWellFormedSlug } from "../contract/slug.ts";
import type { AppContext } from "../services/platform/context.ts";
import { nextCommerceDueCached } from "../services/commerce/listings.ts";
import { runOperationOnce } from "../services/operations/run-once.ts";
import { admit, type Caller } from "../services/operations/bindings.ts";
import { createResponseCache, type ResponseCache } from "../services/platform/response-cache.ts";
import { dataVersionOfTurn } from "../store/platform/data-version.ts";
import { toolOperations, type ToolOperation } from "../core/mcp/catalog.ts";
import { advertised, described } from "./tool-schemas.ts";

export { portableSchema } from "./tool-schemas.ts";

/** A tool's input: one object schema, and how a parsed input becomes the operation's input. */
export interface ToolInput {
  schema: z.ZodObject;
  toOperation: (parsed: Record<string, unknown>) => object;
  /** Fields the tool describes in its own words in `tools/list` (the projection's, and `idempotencyKey`). */
  describe: Readonly<Record<string, string>>;
}

/**
 * The operation's path, query and body fields merged into one object, as MCP tools take them. A
 * body that is not one object (a union, a transform) stays whole under `body`, so the tool's input
 * is still an object (MCP requires `type: "object"` at the root).
 */
export function toolInput(op: Operation): ToolInput {
  const shape = Object.assign({}, ...[op.params, op.query].filter((s) => s !== undefined).map((s) => s.shape)) as z.ZodRawShape;
  const body = op.body;
  const describe = { ...op.mcp?.input?.describe, ...(op.idempotent ? { idempotencyKey: IDEMPOTENCY_MCP } : {}) };
  if (body === undefined || body instanceof z.ZodObject) {
    // Merging the body's fields drops its own refinements (updateReaderCity's "at least one field"),
    // so a refined body is checked again, on its fields alone, as HTTP checks it.
    const refined = body instanceof z.ZodObject && (body._zod.def.checks?.length ?? 0) > 0 ? body : undefined;
    const toOperation = ({ idempotencyKey: _, ...rest }: Record<string, unknown>) => {
      if (refined) checkBody(refined, rest);
      return rest;
    };
    return { schema: projected(z.object({ ...shape, ...(body instanceof z.ZodObject ? body.shape : {}) }), op), toOperation, describe };
  }
  return {
    schema: projected(z.object({ ...shape, body }), op),
    toOperation: ({ body: value, idempotencyKey: _, ...rest }) => ({ ...rest, ...(value as object) }),
    describe,
  };
}

/** A refined object body's own checks, on the tool arguments that are its fields. */
function checkBody(body: z.ZodObject, args: Record<string, unknown>): void {
  const fields = Object.fromEntries(Object.entries(args).filter(([k]) => Object.hasOwn(body.shape, k)));
  const result = body.safeParse(fields);
  if (result.success) return;
  const issues = toFieldIssues(result.error.issues);
  throw new AppError("validation_error", `Input validation failed: ${issues.map((i) => `${i.path || "input"}: ${i.message}`).join("; ")}`, { issues });
}

/**
 * The fields the tool offers: the projection leaves out a web form's fields and may relax required
 * ones; a creating write also takes `idempotencyKey` (the HTTP `Idempotency-Key` header's value).
 */
function projected(fields: z.ZodObject, op: Operation): z.ZodObject {
  const schema = op.idempotent ? fields.extend({ idempotencyKey: IdempotencyKey.optional() }) : fields;
  const choice = op.mcp?.input;
  if (!choice) return schema;
  const keys = new Set(Object.keys(schema.shape));
  for (const key of [...(choice.omit ?? []), ...(choice.optional ?? [])]) {
    if (!keys.has(key)) throw new Error(`${op.operationId}: the MCP projection names ${key}, which the operation does not have`);
  }
  const mask = (names: readonly string[]) => Object.fromEntries(names.map((k) => [k, true])) as never;
  const kept = choice.omit?.length ? schema.omit(mask(choice.omit)) : schema;
  return choice.optional?.length ? kept.partial(mask(choice.optional)) : kept;
}

/**
 * The tools as every request's server registers them, made once per app: building the zod input
 * objects and converting the schemas to JSON Schema was most of an MCP request's CPU when each
 * request's server did it again.
 */
export interface ToolCatalog {
  tools: Array<{ op: ToolOperation; input: ToolInput; inputSchema: StandardSchemaWithJSON; outputSchema: StandardSchemaWithJSON }>;
  /** Results of the reads HTTP keeps too, kept the same way (src/services/platform/response-cache.ts). */
  reads: ResponseCache<{ result: CallToolResult }>;
}

export function createToolCatalog(ctx: AppContext, ops: readonly Operation[] = operations): ToolCatalog {
  const tools = toolOperations(ops).map((op) => {
    const input = toolInput(op);
    return { op, input, inputSchema: advertised(input.schema, input.describe), outputSchema: described(op.response) };
  });
  return { tools, reads: createResponseCache(ctx) };
}

/** One tool call: the bound operation's reply as an MCP result (markdown or JSON text plus structured content). */
async function callTool(ctx: AppContext, op: ToolOperation, input: Record<string, unknown>, caller: Caller, idempotencyKey?: string): Promise<{ result: CallToolResult; keep: boolean }> {
  const { reply, replayed } = await runOperationOnce(ctx, op, input, caller, idempotencyKey);
  const data = JSON.parse(JSON.stringify(reply.data)) as Record<string, unknown>;
  const text = op.mcp.output === "markdown" && reply.options.markdown !== undefined ? reply.options.markdown : JSON.stringify(data);
  // A replay is the first call's answer as it was; `_meta` says so (HTTP: `Idempotent-Replayed: true`).
  const meta = replayed ? { _meta: { "citydaily/idempotentReplayed": true } } : {};
  return { result: { content: [{ type: "text", text }], structuredContent: data, ...meta }, keep: (reply.options.cacheControl ?? op.cache) !== CACHE.none };
}

/** A kept result, copied so the SDK's handling of one answer cannot change the next. */
const copyOf = (result: CallToolResult): CallToolResult => ({ ...result, content: result.content.map((c) => ({ ...c })) });

/** What a model writes for an argument under another name, by the name the tools use. */
const ALIASES: Record<string, readonly string[]> = {
  slug: ["city", "town", "place", "city_slug", "cityslug", "town_slug", "townslug", "location"],
  q: ["query", "search", "term", "terms", "text", "keywords", "name"],
  id: ["orderid", "order_id", "order"],
  date: ["day", "edition_date", "editiondate"],
};

/** Edits between two names, a swap of neighbours counting one (optimal string alignment): `slgu` is one from `slug`. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** The allowed argument an unknown one probably meant: same name in another case, a near spelling, a synonym, or a slug's value. */
export function meantArgument(key: string, value: unknown, allowed: readonly string[]): string | undefined {
  const k = key.toLowerCase();
  const exact = allowed.find((a) => a.toLowerCase() === k);
  if (exact) return exact;
  const near = allowed.map((a) => [a, editDistance(k, a.toLowerCase())] as const).filter(([a, d]) => d <= Math.min(2, Math.floor(a.length / 3))).sort((x, y) => x[1] - y[1])[0];
  if (near) return near[0];
  const alias = allowed.find((a) => ALIASES[a]?.includes(k));
  if (alias) return alias;
  if (allowed.includes("slug") && typeof value === "string" && isWellFormedSlug(value.trim().toLowerCase())) return "slug";
  return undefined;
}

/**
 * A tool's arguments checked strictly: an argument the tool does not have is refused, naming the
 * ones it takes (a misspelled `city` for `slug` used to be dropped, and search_archives searched
 * every town instead of one). Generic: the allowed names are the tool's input schema's properties.
 */
function unknownArguments(tool: string, schema: z.ZodObject, args: Record<string, unknown>): FieldIssue[] {
  const allowed = Object.keys(schema.shape);
  return Object.keys(args).filter((k) => !Object.hasOwn(schema.shape, k)).map((k) => {
    const meant = meantArgument(k, args[k], allowed);
    const takes = allowed.length ? `${tool} takes ${allowed.map((a) => `\`${a}\``).join(", ")}` : `${tool} takes no arguments`;
    return { path: k, message: `unknown argument: ${takes}${meant ? `; did you mean \`${meant}\`?` : ""}` };
  });
}

/** A slug as a model may write it (`Marfa-Texas`, ` marfa-texas`): slugs that differ only in case name one place. */
export const normalSlug = (value: unknown) => (typeof value === "string" ? value.trim().toLowerCase() : value);

function parseInput(tool: string, schema: z.ZodObject, args: unknown): Record<string, unknown> {
  let given = args ?? {};
  if (typeof given === "object" && given !== null && "slug" in given) given = { ...given, slug: normalSlug((given as { slug: unknown }).slug) };
  const unknown = typeof given === "object" && !Array.isArray(given) ? unknownArguments(tool, schema, given as Record<string, unknown>) : [];
  const result = schema.safeParse(given);
  const issues = [...unknown, ...(result.success ? [] : toFieldIssues(result.error.issues))];
  if (issues.length) {
    throw new AppError("validation_error", `Input validation failed: ${issues.map((i) => `${i.path || "input"}: ${i.message}`).join("; ")}`, { issues });
  }
  return result.data as Record<string, unknown>;
}

/** An AppError as an MCP tool error: the same problem body (code, resolution...) as the HTTP API. */
export function toolError(ctx: AppContext, tool: string, error: unknown): CallToolResult {
  let problem;
  const full = storageFullError(error);
  if (full) {
    ctx.log.error({ alert: "storage_full", tool, error: (error as Error).message }, "the disk under the database is full; writes are refused until there is room");
    error = full;
  }
  if (error instanceof AppError) {
    // The resolution MCP clients can follow: tools and fields, not paths and headers.
    problem = problemBody(ctx.config.baseUrl, error.code, error.mcpDetail ?? error.message, undefined, error.issues, "mcp", error.extra);
    const retryAfter = error.headers?.["Retry-After"];
    if (retryAfter) problem = { ...problem, retryAfter: Number(retryAfter) };
  } else {
    ctx.log.error({ err: error, tool }, "MCP tool failed");
    problem = problemBody(ctx.config.baseUrl, "internal_error", "The server hit an unexpected error; it has been logged.", undefined, undefined, "mcp");
  }
  return { isError: true, content: [{ type: "text", text: JSON.stringify(problem) }], _meta: { "citydaily/problem": problem } };
}

/**
 * Registers one tool per operation with an `mcp` projection (with `only`, that tool alone: a server
 * made for one call). Each call goes through the same `admit` (rate limits) and `runOperation` (the
 * bound service) as the HTTP route.
 */
export function registerTools(server: McpServer, ctx: AppContext, caller: Caller, catalog: ToolCatalog, only?: string): void {
  const { reads } = catalog;
  for (const { op, input, inputSchema, outputSchema } of catalog.tools) {
    if (only !== undefined && op.mcp.tool !== only) continue;
    const { mcp } = op;
    const config = {
      title: mcp.title,
      description: mcp.description ?? [op.summary, op.description].filter(Boolean).join("\n\n"),
      inputSchema,
      outputSchema,
      // The display name is the tool's `title` (2025-06-18 on); `annotations.title`, its older place,
      // would only repeat it in every tools/list a model reads.
      annotations: mcp.annotations,
    };
    const register = (cb: (args: unknown) => Promise<CallToolResult>) => mcp.ui
      // A tool with an MCP Apps view (src/mcp/apps.ts): the extension's helper writes its `_meta.ui`.
      ? registerAppTool(server, mcp.tool, { ...config, _meta: { ui: { resourceUri: mcp.ui } } }, cb as never)
      : server.registerTool(mcp.tool, config, cb);
    register(async (args: unknown): Promise<CallToolResult> => {
      try {
        admit(ctx, op, caller);
        const all = parseInput(mcp.tool, input.schema, args);
        const parsed = input.toOperation(all) as Record<string, unknown>;
        if (!reads.keeps(op)) return (await callTool(ctx, op, parsed, caller, all.idempotencyKey as string | undefined)).result;
        const key = `${op.operationId} ${JSON.stringify(parsed)}`;
        const hit = reads.get(key);
        if (hit) return copyOf(hit.result);
        // As of this turn (a commit since makes the keeping read differ, and nothing is kept): cheaper than a full read.
        const versionBefore = dataVersionOfTurn(ctx.db);
        const { result, keep } = await callTool(ctx, op, parsed, caller);
        if (keep) reads.set(key, versionBefore, { result: copyOf(result) }, nextCommerceDueCached(ctx));
        return result;
      } catch (error) {
        return toolError(ctx, mcp.tool, error);
      }
    });
  }
}
