import crypto from "node:crypto";
import type { AppContext } from "../platform/context.ts";
import { isToken, newToken } from "./tokens.ts";

/**
 * The operators' forms (the desk, sign-in, the OAuth consent) carry a CSRF token: an HMAC of the
 * session id (signed-in forms) or of a random pre-session nonce kept in a cookie (the forms shown
 * before sign-in), with a key kept in the database. A form posted from another site cannot know it.
 */
export function csrfToken(ctx: AppContext, bound: string): string {
  return crypto.createHmac("sha256", ctx.secrets.stored("operator_csrf_secret")).update(`csrf\n${bound}`).digest("base64url");
}

export function csrfValid(ctx: AppContext, bound: string | undefined, given: string | null | undefined): boolean {
  if (!bound || !given) return false;
  const a = Buffer.from(csrfToken(ctx, bound));
  const b = Buffer.from(given);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

/** What a pre-session form's token is bound to: the browser's nonce (`undefined` when it has none). */
export const preSessionBinding = (nonce: string | undefined): string | undefined => (nonce ? `pre:${nonce}` : undefined);

/** The token of a form shown before sign-in, bound to the browser's nonce. */
export const preSessionCsrf = (ctx: AppContext, nonce: string): string => csrfToken(ctx, `pre:${nonce}`);

/** A new pre-session nonce, and whether a cookie's value is one. */
export const newNonce = newToken;
export const isNonce = isToken;
