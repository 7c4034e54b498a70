import { createDocument } from "zod-openapi";
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from "zod-openapi";
import { z } from "zod";
import { IdempotencyKey } from "./common.ts";
import { HEALTH_PATHS, HEALTH_TYPE, HealthResponse } from "./health.ts";
import { BODY_LIMIT_BYTES, type Operation } from "./operation.ts";
import { operations } from "./operations/index.ts";
import { PROBLEMS, Problem, problemBody, type ProblemCode } from "./problems.ts";

const TAG_DESCRIPTIONS: Record<string, string> = {
  Cities: "Cities with a newsletter, their census figures, events and directory",
  Editions: "The archive of daily editions and its full-text search",
  Weather: "Today's weather per city",
  Subscriptions: "Subscribing an email address to a city",
  Embeds: "oEmbed for city and edition pages",
  Service: "The service itself",
};

const IDEMPOTENCY_ERRORS = ["validation_error", "idempotency_key_reused", "idempotency_in_progress"] as const;
const IDEMPOTENCY_HEADER = z.object({ "Idempotency-Key": IdempotencyKey.optional() });

const GENERAL_ERRORS = ["endpoint_not_found", "method_not_allowed", "internal_error"] as const;

/** The OpenAPI 3.1 description, generated from the operations and their zod schemas. */
export function openApiDocument(baseUrl: string, ops: Operation[] = operations) {
  const paths: ZodOpenApiPathsObject = {};
  for (const op of ops) {
    const codes: ProblemCode[] = [...new Set<ProblemCode>([...op.errors, ...(op.body ? (["invalid_json", "payload_too_large", "storage_full"] as const) : []), ...(op.idempotent ? IDEMPOTENCY_ERRORS : []), ...GENERAL_ERRORS])];
    const byStatus = new Map<number, ProblemCode[]>();
    for (const c of codes) byStatus.set(PROBLEMS[c].status, [...(byStatus.get(PROBLEMS[c].status) ?? []), c]);
    const operation: ZodOpenApiOperationObject = {
      operationId: op.operationId,
      // Anonymous: no key, token or account (spec section 5).
      security: [],
      summary: op.summary,
      description: op.description,
      tags: op.tags,
      requestParams: { ...(op.params ? { path: op.params } : {}), ...(op.query ? { query: op.query } : {}), ...(op.idempotent ? { header: IDEMPOTENCY_HEADER } : {}) },
      ...(op.body ? { requestBody: { required: true, content: { "application/json": { schema: op.body } } } } : {}),
      responses: {
        200: {
          description: "Success",
          headers: op.method === "GET" ? {
            ETag: { description: "Strong validator; send it back in If-None-Match for a 304", schema: { type: "string" } },
            "Cache-Control": { description: op.cache, schema: { type: "string" } },
          } : op.idempotent ? {
            "Idempotent-Replayed": { description: "`true` when this is the stored answer of an earlier request with the same `Idempotency-Key` (nothing new was created)", schema: { type: "string", enum: ["true"] } },
          } : undefined,
          content: {
            "application/json": { schema: op.response },
            ...(op.markdownVariant ? { "text/markdown": { schema: { type: "string" } } } : {}),
          },
        },
        ...(op.method === "GET" ? { 304: { description: "Not modified (If-None-Match matched the ETag)" } } : {}),
        ...Object.fromEntries([...byStatus].map(([status, cs]) => [status, {
          description: cs.map((c) => `\`${c}\`: ${PROBLEMS[c].title}`).join("; "),
          content: {
            "application/problem+json": {
              schema: Problem,
              examples: Object.fromEntries(cs.map((c) => [c, { summary: PROBLEMS[c].title, value: problemBody(baseUrl, c, `An example of ${c}.`, op.path, c === "validation_error" ? [{ path: "slug", message: "Required" }] : undefined) }])),
            },
          },
        }])),
      },
    };
    const entry = (paths[op.path] ??= {}) as Record<string, ZodOpenApiOperationObject>;
    entry[op.method.toLowerCase()] = operation;
  }
  // The probes load balancers and monitors ask: outside the API, in the health-check format.
  for (const [path, probe] of Object.entries(HEALTH_PATHS)) {
    paths[path] = {
      get: {
        operationId: path === "/livez" ? "getLiveness" : "getReadiness", security: [], summary: probe.summary, description: probe.description, tags: ["Service"],
        responses: {
          ...Object.fromEntries(probe.codes.map((code) => [code, { description: code === 200 ? "`pass` or `warn`" : "`fail`: at least one check failed", content: { [HEALTH_TYPE]: { schema: HealthResponse } } }])),
          405: { description: "Only GET and HEAD", content: { "text/plain": { schema: { type: "string" } } } },
        },
      },
    };
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
        "Versioning: the current version is v1. Additive changes (a new endpoint, a new optional response field, a new error code) land in v1 without a bump, so ignore fields you do not know. A breaking change gets a new prefix (`/api/v2/...`) and v1 keeps its behaviour. A retirement is announced by a `Deprecation` header (RFC 9745) and a `Sunset` header (RFC 8594) at least 180 days apart, with `Link: <replacement>; rel=\"deprecation\"`; nothing is deprecated today, and the unversioned `/api/` prefix is not scheduled for removal.",
        `No authentication: every operation is anonymous (\`security: []\`). The service sends no webhooks; poll instead. Also available: the MCP server at ${baseUrl}/mcp, the API catalog at ${baseUrl}/.well-known/api-catalog and the developer guide at ${baseUrl}/developers.`,
      ].join("\n\n"),
      license: { name: "CC BY 4.0 (content); weather data by Open-Meteo.com, CC BY 4.0; census data public domain", url: "https://creativecommons.org/licenses/by/4.0/" },
      contact: { name: "citydaily developers", url: `${baseUrl}/developers` },
    },
    externalDocs: { description: "Developer guide", url: `${baseUrl}/developers` },
    servers: [{ url: baseUrl, description: "Every /api path also answers under /api/v1 (same handler)" }],
    tags: [...new Set(ops.flatMap((op) => op.tags))].map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? name })),
    paths,
  });
}
