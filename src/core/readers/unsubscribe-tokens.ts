import crypto from "node:crypto";

/**
 * Unsubscribe and manage-page tokens: `{subscriberId}.{mac}` where mac = HMAC-SHA256 over the
 * subscriber id AND the address, so a token works for exactly one subscription of one address and
 * cannot be edited into another (changing the id changes the expected mac; the address is looked up,
 * never taken from the token). No expiry: links in old emails must keep working (RFC 8058 asks
 * one-click links to stay valid). Pure: the caller looks the subscriber up.
 */
const PURPOSE = "citydaily-unsubscribe-v1";

function mac(secret: string, subscriberId: number, email: string): string {
  return crypto.createHmac("sha256", secret).update(`${PURPOSE}\n${subscriberId}\n${email.toLowerCase()}`).digest("base64url").slice(0, 32);
}

export function signSubscriberToken(secret: string, subscriberId: number, email: string): string {
  return `${subscriberId}.${mac(secret, subscriberId, email)}`;
}

/** The subscriber id a token claims, or undefined when it is not even shaped like a token. */
export function tokenSubscriberId(token: string): number | undefined {
  const m = /^([1-9]\d{0,15})\.[\w-]{32}$/.exec(token);
  return m ? Number(m[1]) : undefined;
}

/** True when `token` was signed for this subscriber id and address (constant-time comparison). */
export function verifySubscriberToken(secret: string, token: string, subscriberId: number, email: string): boolean {
  const expected = Buffer.from(signSubscriberToken(secret, subscriberId, email));
  const given = Buffer.from(token);
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}
