import crypto from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { IDEMPOTENCY_TTL_HOURS, type Operation } from "../../contract/operation.ts";
import { AppError } from "../../core/errors.ts";
import { claimIdempotencyKey, finishIdempotencyKey, releaseIdempotencyKey } from "../../store/platform/idempotency.ts";
import type { AppContext } from "../platform/context.ts";
import { runOperation, type Caller } from "./bindings.ts";
import { Reply } from "../platform/reply.ts";

// Creating writes made safe to retry, once for every transport: HTTP passes the `Idempotency-Key`
// header, MCP the tool's `idempotencyKey` argument. The key is claimed in SQLite before the
// operation runs, so two requests with one key (a retry after a timeout, or two at once) make one
// order; the second waits for the first and answers its answer. Only successes are kept: a failed
// request frees its key, and retrying it runs again (nothing was created that the caller was told of).

/** A claim this old with no answer belongs to a request that died (a crash mid-checkout): it is dropped. */
const STALE_CLAIM_MS = 5 * 60_000;
/** How long a second request waits for the first with the same key before answering 409 `idempotency_in_progress`. */
const WAIT_FOR_FIRST_MS = 10_000;
const POLL_MS = 25;

/** JSON with object keys sorted, so the same input always hashes alike (field order is not meaning). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** What a key remembers of its request: the sha256 of the validated input's canonical JSON. */
export function requestHash(input: object): string {
  return crypto.createHash("sha256").update(canonicalJson(input)).digest("hex");
}

export interface OnceOptions {
  /** How long a second request waits for the first with its key (default 10 s). */
  waitMs?: number;
  /**
   * Who the key belongs to, when the caller is signed in (an operator's identity, from the session):
   * the key is then unique per operation and scope instead of per operation.
   */
  scope?: string;
}

export interface OnceResult {
  reply: Reply<unknown>;
  /** True when the answer is the stored answer of an earlier request with the same key. */
  replayed: boolean;
}

/**
 * Runs a validated input through the operation once per idempotency key: the first request with a
 * key runs and its answer is kept for 24 hours; a later one with the same input gets that answer
 * (`replayed`), one with a different input `422 idempotency_key_reused`. A request arriving while
 * the first is still running waits for it (up to 10 s, then `409 idempotency_in_progress` with
 * Retry-After). Without a key, or for an operation that takes none, it simply runs.
 */
export async function runOperationOnce(ctx: AppContext, op: Operation, input: object, caller: Caller, key: string | undefined, options: OnceOptions = {}): Promise<OnceResult> {
  if (!op.idempotent || key === undefined) return { reply: await runOperation(ctx, op, input, caller), replayed: false };
  return runOnce(ctx, op.operationId, input, key, () => runOperation(ctx, op, input, caller), options);
}

/**
 * The same, for a write that is not an operation of the API (an operator's MCP tool): `name` is what
 * the key is kept under (and what a reused key's error names), `run` does the write.
 */
export async function runOnce(ctx: AppContext, name: string, input: object, key: string, run: () => Promise<Reply<unknown>>, options: OnceOptions = {}): Promise<OnceResult> {
  // A signed-in caller's keys are theirs alone: another operator's request with the same key neither
  // reads this answer nor is refused as a reuse. Anonymous callers share the operation's scope.
  const scope = options.scope ? `${name}\n${options.scope}` : name;
  const hash = requestHash(input);
  const giveUpAt = performance.now() + (options.waitMs ?? WAIT_FOR_FIRST_MS);
  for (;;) {
    const now = ctx.config.now().getTime();
    const claim = claimIdempotencyKey(ctx.db, {
      scope, key, hash, now: new Date(now).toISOString(),
      expiredBefore: new Date(now - IDEMPOTENCY_TTL_HOURS * 3600_000).toISOString(),
      staleBefore: new Date(now - STALE_CLAIM_MS).toISOString(),
    });
    if (claim.claimed) break;
    const row = claim.row;
    if (row.request_hash !== hash) {
      throw new AppError("idempotency_key_reused", `This idempotency key was first used on ${row.created_at} with a different request to ${name}; a key names one request. Send that request's exact input again to read its answer, or use a new key.`);
    }
    if (row.state === "done") return { reply: new Reply(JSON.parse(row.response_json ?? "null")), replayed: true };
    if (performance.now() >= giveUpAt) {
      throw new AppError("idempotency_in_progress", "The first request with this idempotency key is still running; retry in a second to read its answer.", { headers: { "Retry-After": "1" } });
    }
    await sleep(POLL_MS);
  }
  try {
    const reply = await run();
    finishIdempotencyKey(ctx.db, scope, key, 200, JSON.stringify(reply.data));
    return { reply, replayed: false };
  } catch (error) {
    releaseIdempotencyKey(ctx.db, scope, key);
    throw error;
  }
}
