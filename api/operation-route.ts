import type { H3, H3Event } from "h3";
import type { z } from "zod";
import type { Operation } from "../src/contract/operation.ts";
import { AppError, toFieldIssues } from "../src/core/errors.ts";
import { readJsonBody } from "./body.ts";
import { jsonRead, jsonWrite } from "./respond.ts";

export interface OperationInput<Op extends Operation> {
  params: Op["params"] extends z.ZodObject ? z.output<Op["params"]> : Record<string, never>;
  query: Op["query"] extends z.ZodObject ? z.output<Op["query"]> : Record<string, never>;
  body: Op["body"] extends z.ZodType ? z.output<Op["body"]> : undefined;
  event: H3Event;
}

export type OperationHandler<Op extends Operation> = (input: OperationInput<Op>) => unknown;

type Bound = { op: Operation; handler: (event: H3Event) => Promise<Response> };

function parse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const issues = toFieldIssues(result.error.issues);
    throw new AppError("validation_error", `Request validation failed: ${issues.map((i) => `${i.path || "body"}: ${i.message}`).join("; ")}`, { issues });
  }
  return result.data;
}

/**
 * Collects operations and mounts them on an h3 app under /api and /api/v1. Each path gets one
 * dispatcher so a known path with a wrong method answers 405 with `Allow`, and OPTIONS is the CORS
 * preflight. Input is validated with the operation's schemas; plain return values are serialised as
 * cacheable JSON for reads and uncached JSON for writes; handlers may also return a Response.
 */
export class OperationRouter {
  #byPath = new Map<string, Bound[]>();

  add<Op extends Operation>(op: Op, handler: OperationHandler<Op>): this {
    const bound: Bound = {
      op,
      handler: async (event) => {
        const params = op.params ? parse(op.params, event.context.params ?? {}) : {};
        const query = op.query ? parse(op.query, Object.fromEntries(event.url.searchParams)) : {};
        const body = op.body ? parse(op.body, await readJsonBody(event)) : undefined;
        const result = await handler({ params, query, body, event } as OperationInput<Op>);
        if (result instanceof Response) return result;
        return op.method === "GET" ? jsonRead(event, result, op.cache) : jsonWrite(result);
      },
    };
    const list = this.#byPath.get(op.path) ?? [];
    list.push(bound);
    this.#byPath.set(op.path, list);
    return this;
  }

  mount(app: H3): void {
    for (const [path, bounds] of this.#byPath) {
      const methods = new Set<string>(bounds.map((b) => b.op.method));
      if (methods.has("GET")) methods.add("HEAD");
      methods.add("OPTIONS");
      const allow = [...methods].join(", ");
      const dispatch = (event: H3Event) => {
        const method = event.req.method === "HEAD" ? "GET" : event.req.method;
        if (method === "OPTIONS") return preflight(allow);
        const bound = bounds.find((b) => b.op.method === method);
        if (!bound) {
          throw new AppError("method_not_allowed", `${event.req.method} is not allowed on ${event.url.pathname}; use ${allow}.`, { headers: { Allow: allow } });
        }
        return bound.handler(event);
      };
      const h3Path = path.replace(/\{(\w+)\}/g, ":$1");
      app.all(h3Path, dispatch);
      app.all(h3Path.replace(/^\/api\//, "/api/v1/"), dispatch);
    }
  }
}

export function preflight(allow: string): Response {
  return new Response(null, {
    status: 204,
    headers: {
      Allow: allow,
      "Access-Control-Allow-Methods": allow,
      "Access-Control-Allow-Headers": "Content-Type, Accept, If-None-Match, MCP-Protocol-Version, Mcp-Session-Id",
      "Access-Control-Max-Age": "86400",
    },
  });
}
