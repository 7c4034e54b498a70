import { PROBLEMS, type Problem, type ProblemCode } from "../src/contract/problems.ts";
import type { FieldIssue } from "../src/core/errors.ts";

/** The one builder of problem+json bodies (RFC 9457, spec section 7). */
export function problemBody(baseUrl: string, code: ProblemCode, detail: string, instance?: string, issues?: FieldIssue[]): Problem {
  const p = PROBLEMS[code];
  return {
    type: `${baseUrl}/developers#error-${code}`,
    title: p.title,
    status: p.status,
    detail,
    ...(instance !== undefined ? { instance } : {}),
    code,
    resolution: p.resolution,
    documentation: `${baseUrl}/developers#error-${code}`,
    error: detail,
    ...(code === "validation_error" ? { issues: issues ?? [] } : {}),
  };
}

/** The one builder of problem+json responses: every /api failure goes through here. */
export function problemResponse(
  baseUrl: string,
  code: ProblemCode,
  detail: string,
  opts: { instance?: string; issues?: FieldIssue[]; headers?: Record<string, string> } = {},
): Response {
  const body = problemBody(baseUrl, code, detail, opts.instance, opts.issues);
  return new Response(JSON.stringify(body), {
    status: body.status,
    headers: { "Content-Type": "application/problem+json", "Cache-Control": "no-store", ...opts.headers },
  });
}
