import { problemBody, type ProblemCode } from "../../src/contract/problems.ts";
import type { ProblemExtra } from "../../src/contract/problems.ts";
import type { FieldIssue } from "../../src/core/errors.ts";


/** The one builder of problem+json responses: every /api failure goes through here. */
export function problemResponse(
  baseUrl: string,
  code: ProblemCode,
  detail: string,
  opts: { instance?: string; issues?: FieldIssue[]; headers?: Record<string, string>; extra?: ProblemExtra } = {},
): Response {
  const body = problemBody(baseUrl, code, detail, opts.instance, opts.issues, "http", opts.extra);
  return new Response(JSON.stringify(body), {
    status: body.status,
    headers: { "Content-Type": "application/problem+json", "Cache-Control": "no-store", ...opts.headers },
  });
}
