import type { ProblemCode, ProblemExtra } from "../contract/problems.ts";

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
  /** Additive problem members: which case of the code this is (`reason`, `place`, `suggestions`). */
  readonly extra?: ProblemExtra;
  /** The detail as an MCP client reads it (tools and arguments, not paths), when it differs. */
  readonly mcpDetail?: string;
  constructor(code: ProblemCode, detail: string, options: { issues?: FieldIssue[]; headers?: Record<string, string>; extra?: ProblemExtra; mcpDetail?: string } = {}) {
    super(detail);
    this.name = "AppError";
    this.code = code;
    this.issues = options.issues;
    this.headers = options.headers;
    this.extra = options.extra;
    this.mcpDetail = options.mcpDetail;
  }
}

/** Zod-style issues as `{path, message}` with dotted paths. */
export function toFieldIssues(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>, prefix?: string): FieldIssue[] {
  return issues.map((i) => ({
    path: [prefix, ...i.path.map(String)].filter((p) => p !== undefined && p !== "").join(".") || (prefix ?? ""),
    message: i.message,
  }));
}

/** Seconds a client is told to wait (Retry-After) when storage is full. */
export const STORAGE_FULL_RETRY_SECONDS = 60;

/**
 * A full disk under the database as an AppError (503 `storage_full`, Retry-After), or undefined:
 * SQLite's SQLITE_FULL (the database or its WAL could not grow) or the system's ENOSPC, however
 * wrapped. The failed transaction was rolled back: nothing is half-stored.
 */
export function storageFullError(error: unknown): AppError | undefined {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e.code === "SQLITE_FULL" || e.code === "ENOSPC") {
      return new AppError("storage_full", "The server's storage is full; nothing was stored. Retry later.", { headers: { "Retry-After": String(STORAGE_FULL_RETRY_SECONDS) } });
    }
  }
  return undefined;
}
