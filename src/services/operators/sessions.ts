import type { DB } from "../../store/db.ts";
import { deleteSession, insertSession, sessionEmail } from "../../store/commerce/operator-sessions.ts";
import type { AppContext } from "../platform/context.ts";
import { hashToken, isToken, newToken } from "./tokens.ts";

/**
 * An operator's session (the desk's and the OAuth consent's cookie): a random id, kept hashed with
 * the operator's address and an expiry. Started only by a sign-in link (./sign-in.ts).
 */

/** A session lasts this long from sign-in (then the operator asks for a new link). */
export const SESSION_HOURS = 12;

/** Starts a session for `email` (inside the caller's transaction): the id for the cookie. */
export function startSession(db: DB, email: string, now: Date): { sessionId: string; expiresAt: string } {
  const sessionId = newToken();
  const expiresAt = new Date(now.getTime() + SESSION_HOURS * 3_600_000).toISOString();
  insertSession(db, { hash: hashToken(sessionId), email, expiresAt }, now.toISOString());
  return { sessionId, expiresAt };
}

/** The operator a session id belongs to, while it lasts. */
export function sessionOperator(ctx: AppContext, sessionId: string | undefined): string | undefined {
  if (!isToken(sessionId)) return undefined;
  return sessionEmail(ctx.db, hashToken(sessionId), ctx.config.now().toISOString());
}

export function signOut(ctx: AppContext, sessionId: string | undefined): void {
  if (isToken(sessionId)) deleteSession(ctx.db, hashToken(sessionId));
}
