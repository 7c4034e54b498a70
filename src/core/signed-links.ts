import crypto from "node:crypto";

/**
 * Signed links for pages without an account (the operator's page): `{value}.{mac}` with value
 * base64url-encoded and mac = HMAC-SHA256 over a purpose and the value, as src/core/tokens.ts does
 * for unsubscribe links. Cannot be forged or edited into another value; compared in constant time.
 */
function mac(secret: string, purpose: string, value: string): string {
  return crypto.createHmac("sha256", secret).update(`${purpose}\n${value}`).digest("base64url").slice(0, 32);
}

export function signLink(secret: string, purpose: string, value: string): string {
  return `${Buffer.from(value).toString("base64url")}.${mac(secret, purpose, value)}`;
}

/** The value a token was signed for, or undefined when it is not a valid token for this purpose. */
export function verifyLink(secret: string, purpose: string, token: string): string | undefined {
  const m = /^([\w-]{1,400})\.([\w-]{32})$/.exec(token);
  if (!m) return undefined;
  const value = Buffer.from(m[1], "base64url").toString();
  const expected = Buffer.from(mac(secret, purpose, value));
  const given = Buffer.from(m[2]);
  return given.length === expected.length && crypto.timingSafeEqual(given, expected) ? value : undefined;
}
