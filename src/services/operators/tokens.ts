import crypto from "node:crypto";

/**
 * The shape of the operators' secrets (sign-in links, session ids, pre-session nonces): 32 random
 * bytes in base64url. Only their SHA-256 reaches the database, so a copy of it opens nothing.
 */
const TOKEN = /^[\w-]{43}$/;

export const newToken = (): string => crypto.randomBytes(32).toString("base64url");

export const hashToken = (token: string): string => crypto.createHash("sha256").update(token).digest("hex");

/** Whether `token` could be one of ours (anything else is refused before the database is asked). */
export const isToken = (token: string | undefined): token is string => !!token && TOKEN.test(token);
