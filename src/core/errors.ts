import type { ProblemCode } from "../contract/problems.ts";

export interface FieldIssue {
  path: string;
  message: string;
}

/**
 * A failure the caller should see, named by its problem code. Services throw it; the HTTP layer
 * turns it into problem+json and the MCP layer into a tool error, so both speak the same codes.
 */
export class AppError extends Error {
  readonly code: ProblemCode;
  readonly issues?: FieldIssue[];
  readonly headers?: Record<string, string>;
  constructor(code: ProblemCode, detail: string, options: { issues?: FieldIssue[]; headers?: Record<string, string> } = {}) {
    super(detail);
    this.name = "AppError";
    this.code = code;
    this.issues = options.issues;
    this.headers = options.headers;
  }
}

/** Zod-style issues as `{path, message}` with dotted paths. */
export function toFieldIssues(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>, prefix?: string): FieldIssue[] {
  return issues.map((i) => ({
    path: [prefix, ...i.path.map(String)].filter((p) => p !== undefined && p !== "").join(".") || (prefix ?? ""),
    message: i.message,
  }));
}
