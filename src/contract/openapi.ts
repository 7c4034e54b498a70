import { createDocument } from "zod-openapi";
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from "zod-openapi";
import { BODY_LIMIT_BYTES, type Operation } from "./operation.ts";
import { operations } from "./operations/index.ts";
import { PROBLEMS, Problem, type ProblemCode } from "./problems.ts";

const GENERAL_ERRORS = ["endpoint_not_found", "method_not_allowed", "internal_error"] as const;

/** The OpenAPI 3.1 description, generated from the operations and their zod schemas. */
export function openApiDocument(baseUrl: string, ops: Operation[] = operations) {
  const paths: ZodOpenApiPathsObject = {};
  for (const op of ops) {
    const codes: ProblemCode[] = [...new Set<ProblemCode>([...op.errors, ...(op.body ? (["invalid_json", "payload_too_large"] as const) : []), ...GENERAL_ERRORS])];
    const byStatus = new Map<number, ProblemCode[]>();
    for (const c of codes) byStatus.set(PROBLEMS[c].status, [...(byStatus.get(PROBLEMS[c].status) ?? []), c]);
    const operation: ZodOpenApiOperationObject = {
      operationId: op.operationId,
      summary: op.summary,
      description: op.description,
      tags: op.tags,
      requestParams: { ...(op.params ? { path: op.params } : {}), ...(op.query ? { query: op.query } : {}) },
      ...(op.body ? { requestBody: { required: true, content: { "application/json": { schema: op.body } } } } : {}),
      responses: {
        200: {
          description: "Success",
          headers: op.method === "GET" ? {
            ETag: { description: "Strong validator; send it back in If-None-Match for a 304", schema: { type: "string" } },
            "Cache-Control": { description: op.cache, schema: { type: "string" } },
          } : undefined,
          content: {
            "application/json": { schema: op.response },
            ...(op.markdownVariant ? { "text/markdown": { schema: { type: "string" } } } : {}),
          },
        },
        ...(op.method === "GET" ? { 304: { description: "Not modified (If-None-Match matched the ETag)" } } : {}),
        ...Object.fromEntries([...byStatus].map(([status, cs]) => [status, {
          description: cs.map((c) => `\`${c}\`: ${PROBLEMS[c].title}`).join("; "),
          content: { "application/problem+json": { schema: Problem } },
        }])),
      },
    };
    const entry = (paths[op.path] ??= {}) as Record<string, ZodOpenApiOperationObject>;
    entry[op.method.toLowerCase()] = operation;
  }
  return createDocument({
    openapi: "3.1.0",
    info: {
      title: "citydaily API",
      version: "v1",
      description: [
        "A free daily newsletter for every U.S. city. Reads are anonymous, cacheable (`Cache-Control`, strong `ETag`, 304 on `If-None-Match`) and cross-origin open (`Access-Control-Allow-Origin: *`).",
        "Every `/api/...` path also answers at `/api/v1/...`; every response carries `API-Version: v1`.",
        "Every failure is `application/problem+json` (RFC 9457); branch on `code`. `issues[]` is present on validation failures only.",
        `Request bodies are limited to ${BODY_LIMIT_BYTES} bytes (413 \`payload_too_large\`).`,
      ].join("\n\n"),
    },
    servers: [{ url: baseUrl }],
    paths,
  });
}
