import type { H3, H3Event } from "h3";
import type { z } from "zod";
import { allOperations } from "../src/contract/operations/index.ts";
import type { Operation } from "../src/contract/operation.ts";
import { AppError, toFieldIssues } from "../src/core/errors.ts";
import type { AppContext } from "../src/services/context.ts";
import { admit, runOperation, type Caller } from "../src/services/operations.ts";
import { requireAdmin } from "./auth.ts";
import { readJsonBody } from "./body.ts";
import { jsonRead, jsonWrite } from "./caching.ts";
import { clientAddress } from "./client-address.ts";
import { preflight } from "./cors.ts";
import { markdownRead } from "./negotiation.ts";

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
async function handle(ctx: AppContext, op: Operation, event: H3Event): Promise<Response> {
  if (op.auth === "admin") requireAdmin(ctx, event);
  const caller: Caller = { transport: "http", address: clientAddress(event, ctx.config.mail.trustProxyHops), admin: op.auth === "admin" };
  admit(ctx, op, caller);
  const { params: rawParams, markdown } = markdownParams(op, (event.context.params ?? {}) as Record<string, string>);
  const params = op.params ? parse(op.params, rawParams) : {};
  const query = op.query ? parse(op.query, Object.fromEntries(event.url.searchParams)) : {};
  const body = op.body ? parse(op.body, await readJsonBody(event)) : {};
  const reply = await runOperation(ctx, op, { ...params, ...query, ...(body as object) }, caller);
  const cacheControl = reply.options.cacheControl ?? op.cache;
  if (markdown && reply.options.markdown !== undefined) return markdownRead(event, reply.options.markdown, cacheControl);
  return op.method === "GET" ? jsonRead(event, reply.data, cacheControl) : jsonWrite(reply.data);
}

/**
 * Mounts every operation on the h3 app (those under /api also under /api/v1). Each path gets one
 * dispatcher, so a known path with a wrong method answers 405 with `Allow`, and OPTIONS is the CORS
 * preflight.
 */
export function mountOperations(app: H3, ctx: AppContext, ops: Operation[] = allOperations): void {
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
      return handle(ctx, op, event);
    };
    const h3Path = path.replace(/\{(\w+)\}/g, ":$1");
    app.all(h3Path, dispatch);
    if (h3Path.startsWith("/api/")) app.all(h3Path.replace(/^\/api\//, "/api/v1/"), dispatch);
  }
}
