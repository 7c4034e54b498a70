import type { H3, H3Event } from "h3";
import type { z } from "zod";
import { allOperations } from "../../src/contract/operations/index.ts";
import { CACHE, type Operation } from "../../src/contract/operation.ts";
import { AppError, toFieldIssues } from "../../src/core/errors.ts";
import type { AppContext } from "../../src/services/platform/context.ts";
import { nextCommerceDueCached } from "../../src/services/commerce/listings.ts";
import { IdempotencyKey } from "../../src/contract/common.ts";
import { runOperationOnce } from "../../src/services/operations/run-once.ts";
import { admit, runOperation, type Caller } from "../../src/services/operations/bindings.ts";
import { createResponseCache, type ResponseCache } from "../../src/services/platform/response-cache.ts";
import { requireAdmin } from "./auth.ts";
import { readJsonBody } from "./body.ts";
import { cachedResponse, jsonWrite } from "./caching.ts";
import { etagOf } from "../../src/publish/precompressed.ts";
import { clientAddress } from "./client-address.ts";
import { preflight } from "./cors.ts";
import { keepAtEdge } from "./edge-cache.ts";
import { markdownHeaders } from "./negotiation.ts";

function parse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const issues = toFieldIssues(result.error.issues);
    throw new AppError("validation_error", `Request validation failed: ${issues.map((i) => `${i.path || "body"}: ${i.message}`).join("; ")}`, { issues });
  }
  return result.data;
}

/** An operation whose last path parameter ends in `.md` asks for the markdown twin. */
function markdownParams(op: Operation, params: Record<string, string>): { params: Record<string, string>; markdown: boolean } {
  const last = op.markdownVariant ? /\{(\w+)\}$/.exec(op.path)?.[1] : undefined;
  if (!last || !params[last]?.endsWith(".md")) return { params, markdown: false };
  return { params: { ...params, [last]: params[last].slice(0, -3) }, markdown: true };
}

/** One HTTP request through one operation: auth, rate limit, validation, the bound service, the response. */
async function handle(ctx: AppContext, op: Operation, event: H3Event, cache: ResponseCache): Promise<Response> {
  if (op.auth === "admin") requireAdmin(ctx, event);
  const caller: Caller = { transport: "http", address: clientAddress(event, ctx.config.mail.trustProxyHops), admin: op.auth === "admin" };
  admit(ctx, op, caller);
  if (!cache.keeps(op)) return run(ctx, op, event, caller);
  // /api/v1/x and /api/x are one resource.
  const key = `${op.operationId} ${event.url.pathname.replace(/^\/api\/v1\//, "/api/")}${event.url.search}`;
  const hit = cache.get(key);
  if (hit) {
    keepAtEdge(event, hit.until);
    return cachedResponse(event, hit.body, hit.contentType, hit.cacheControl, hit.headers, hit.etag);
  }
  const versionBefore = cache.version();
  const read = await readOperation(ctx, op, event, caller);
  const etag = etagOf(read.body);
  if (read.cacheControl !== CACHE.none) {
    const until = cache.set(key, versionBefore, { ...read, etag }, nextCommerceDueCached(ctx));
    if (until !== undefined) keepAtEdge(event, until);
  }
  return cachedResponse(event, read.body, read.contentType, read.cacheControl, read.headers, etag);
}

async function input(op: Operation, event: H3Event): Promise<{ input: Record<string, unknown>; markdown: boolean }> {
  const { params: rawParams, markdown } = markdownParams(op, (event.context.params ?? {}) as Record<string, string>);
  const params = op.params ? parse(op.params, rawParams) : {};
  const query = op.query ? parse(op.query, Object.fromEntries(event.url.searchParams)) : {};
  const body = op.body ? parse(op.body, await readJsonBody(event)) : {};
  return { input: { ...params, ...query, ...(body as object) }, markdown };
}

/** A read's encoded answer, as the response cache keeps it. */
async function readOperation(ctx: AppContext, op: Operation, event: H3Event, caller: Caller) {
  const { input: args, markdown } = await input(op, event);
  const reply = await runOperation(ctx, op, args, caller);
  const cacheControl = reply.options.cacheControl ?? op.cache;
  if (markdown && reply.options.markdown !== undefined) {
    return { body: reply.options.markdown, contentType: "text/markdown; charset=utf-8", cacheControl, headers: markdownHeaders(reply.options.markdown) };
  }
  return { body: JSON.stringify(reply.data), contentType: "application/json; charset=utf-8", cacheControl, headers: {} };
}

/** An operation whose answers are not kept: a read answered as the cache would, or a write. */
async function run(ctx: AppContext, op: Operation, event: H3Event, caller: Caller): Promise<Response> {
  if (op.method === "GET") {
    const read = await readOperation(ctx, op, event, caller);
    return cachedResponse(event, read.body, read.contentType, read.cacheControl, read.headers);
  }
  const args = (await input(op, event)).input;
  const { reply, replayed } = await runOperationOnce(ctx, op, args, caller, idempotencyKeyOf(op, event));
  return jsonWrite(reply.data, 200, replayed ? { "Idempotent-Replayed": "true" } : {});
}

/** The request's `Idempotency-Key`, for an operation that takes one (other operations ignore the header). */
function idempotencyKeyOf(op: Operation, event: H3Event): string | undefined {
  const raw = op.idempotent ? event.req.headers.get("idempotency-key") : null;
  if (raw === null) return undefined;
  const result = IdempotencyKey.safeParse(raw);
  if (!result.success) {
    const issues = toFieldIssues(result.error.issues, "header.Idempotency-Key");
    throw new AppError("validation_error", `Request validation failed: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`, { issues });
  }
  return result.data;
}

/**
 * Mounts every operation on the h3 app (those under /api also under /api/v1). Each path gets one
 * dispatcher, so a known path with a wrong method answers 405 with `Allow`, and OPTIONS is the CORS
 * preflight.
 */
export function mountOperations(app: H3, ctx: AppContext, ops: Operation[] = allOperations): void {
  const cache = createResponseCache(ctx);
  const byPath = Map.groupBy(ops, (op) => op.path);
  for (const [path, pathOps] of byPath) {
    const methods = new Set<string>(pathOps.map((op) => op.method));
    if (methods.has("GET")) methods.add("HEAD");
    methods.add("OPTIONS");
    const allow = [...methods].join(", ");
    const dispatch = (event: H3Event) => {
      const method = event.req.method === "HEAD" ? "GET" : event.req.method;
      if (method === "OPTIONS") return preflight(allow);
      const op = pathOps.find((o) => o.method === method);
      if (!op) {
        throw new AppError("method_not_allowed", `${event.req.method} is not allowed on ${event.url.pathname}; use ${allow}.`, { headers: { Allow: allow } });
      }
      return handle(ctx, op, event, cache);
    };
    const h3Path = path.replace(/\{(\w+)\}/g, ":$1");
    app.all(h3Path, dispatch);
    if (h3Path.startsWith("/api/")) app.all(h3Path.replace(/^\/api\//, "/api/v1/"), dispatch);
  }
}
