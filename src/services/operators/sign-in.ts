import { leasesOfOperator } from "../../store/commerce/leases.ts";
import { consumeLoginToken, insertLoginToken, isOperator, loginTokenUsable, pruneSignIn } from "../../store/commerce/operator-sessions.ts";
import { enqueueTransactional } from "../../store/mail/outbox.ts";
import type { AppContext } from "../platform/context.ts";
import { takeToken } from "../platform/limits.ts";
import { startSession } from "./sessions.ts";
import { hashToken, isToken, newToken } from "./tokens.ts";

/**
 * Operators sign in by an emailed one-time link (the desk, /operator, and an AI client's consent,
 * /operator/connect/{uid}): no password. Using the link starts a session (./sessions.ts).
 */

/** A sign-in link works once, within this many minutes. */
export const SIGN_IN_LINK_MINUTES = 15;

/**
 * Asks for a sign-in link. The same for every address (no account discovery): an address that runs
 * or ran a town gets the email, any other gets nothing, and the caller answers alike. Limited per
 * address and client (429 `rate_limited` for any address past its allowance, so that says nothing either).
 */
export function requestSignIn(ctx: AppContext, rawEmail: string, clientAddress: string): void {
  const email = rawEmail.trim().toLowerCase();
  // Counted per address AND client: a stranger asking for an operator's address uses up only their
  // own allowance, and the operator, asking from another network, still gets the link.
  takeToken(ctx.limits, "operatorSignIn", `${email} ${clientAddress}`);
  const now = ctx.config.now();
  const nowIso = now.toISOString();
  pruneSignIn(ctx.db, nowIso, new Date(now.getTime() - SIGN_IN_LINK_MINUTES * 60_000).toISOString());
  if (!isOperator(ctx.db, email)) return;
  const token = newToken();
  const expiresAt = new Date(now.getTime() + SIGN_IN_LINK_MINUTES * 60_000).toISOString();
  // The email gives the expiry on the clock of the operator's town (an active one first).
  const leases = leasesOfOperator(ctx.db, email);
  const timeZone = (leases.find((l) => l.status === "active") ?? leases[0])?.timezone;
  ctx.db.transaction(() => {
    insertLoginToken(ctx.db, { hash: hashToken(token), email, expiresAt }, nowIso);
    // The link carries a random token only, never the address.
    enqueueTransactional(ctx.db, {
      to: email, template: "operator_sign_in", dedupeKey: `sign-in:${hashToken(token)}`,
      payload: { signInUrl: `${ctx.config.baseUrl}/operator/sign-in/${token}`, expiresAt, timeZone },
    }, now.getTime(), nowIso);
  }).immediate();
  ctx.mail.kick();
}

/** Whether a sign-in link can still be used (shown before the person presses Sign in). */
export function signInLinkUsable(ctx: AppContext, token: string): boolean {
  return isToken(token) && loginTokenUsable(ctx.db, hashToken(token), ctx.config.now().toISOString());
}

/** Uses a sign-in link (once) and starts a session: the session id for the cookie, or undefined. */
export function completeSignIn(ctx: AppContext, token: string): { sessionId: string; expiresAt: string; email: string } | undefined {
  if (!isToken(token)) return undefined;
  const now = ctx.config.now();
  return ctx.db.transaction(() => {
    const email = consumeLoginToken(ctx.db, hashToken(token), now.toISOString());
    return email ? { ...startSession(ctx.db, email, now), email } : undefined;
  }).immediate();
}
