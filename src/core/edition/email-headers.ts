/**
 * The addressing of the emails citydaily sends (src/core/edition/email-render.ts renders them): the
 * sender and the reader, the links each reader's copy carries (unsubscribe by https and by mailto,
 * manage, the town's pages) and the list headers inbox providers require.
 */

export interface Sender {
  /** The From header, e.g. `citydaily <news@example.com>`. */
  from: string;
  /** Public origin for links, e.g. `https://citydaily.example`. */
  baseUrl: string;
  postalAddress: string;
}

export interface Recipient {
  email: string;
  /** Signed subscriber token (src/core/readers/unsubscribe-tokens.ts) for the unsubscribe and manage links. */
  token: string;
  /** The subscription's referral code: the share line's subscribe link carries it as `ref`. */
  ref?: string;
}

export interface CityInfo {
  name: string;
  state: string;
  slug: string;
}

/**
 * The domain of the From address: the sending domain of Message-IDs and the unsubscribe mailbox.
 * It may be an address literal (`[127.0.0.1]`, `[ipv6:::1]`).
 */
export function senderDomain(from: string): string {
  const m = /@(\[[^\]\s]+\]|[^\s>@]+)>?\s*$/.exec(from);
  if (!m) throw new Error(`the From address has no domain: "${from}"`);
  return m[1].toLowerCase(); // domains and the literal's "IPv6:" tag are case-insensitive; nodemailer writes them lowercased
}

/**
 * The namespace of List-Id (RFC 2919): the sending domain, or "localhost", the namespace RFC 2919
 * sets aside for lists without a domain, when mail is sent from an address literal.
 */
export function listIdNamespace(from: string): string {
  const domain = senderDomain(from);
  return domain.startsWith("[") ? "localhost" : domain;
}

export interface MailLinks {
  /** GET: confirmation page; POST: RFC 8058 one-click unsubscribe from this city. */
  unsubscribe: string;
  /** Mail to this address (subject carries the token) to unsubscribe. */
  unsubscribeMailto: string;
  /** All cities of this address, unsubscribe from one or all. */
  manage: string;
  /** GET: a page with one button; POST: this town once a week (Saturday) instead of every morning. */
  weekly: string;
  city: string;
  /** The town's buying page: list an event or a business. */
  advertise: string;
  /** The town's calendar for calendar apps (`webcal:` of /{slug}/calendar.ics). */
  calendar: string;
}

export function mailLinks(sender: Sender, to: Recipient, city: CityInfo): MailLinks {
  const token = encodeURIComponent(to.token);
  return {
    unsubscribe: `${sender.baseUrl}/unsubscribe/${token}`,
    // RFC 6068: an address literal's brackets are percent-encoded in a mailto URI.
    unsubscribeMailto: `mailto:unsubscribe@${senderDomain(sender.from).replace(/\[/g, "%5B").replace(/\]/g, "%5D")}?subject=unsubscribe%20${token}`,
    manage: `${sender.baseUrl}/subscriptions/${token}`,
    weekly: `${sender.baseUrl}/weekly/${token}`,
    city: `${sender.baseUrl}/${city.slug}`,
    advertise: `${sender.baseUrl}/advertise/${city.slug}`,
    calendar: `${sender.baseUrl.replace(/^https?:/, "webcal:")}/${city.slug}/calendar.ics`,
  };
}

/** Header values are sent as written, so they must be plain ASCII: accents folded, quotes dropped. */
function asciiPhrase(s: string): string {
  return s.normalize("NFKD").replace(/[^\x20-\x7e]/g, "").replace(/["\\]/g, "");
}

/**
 * Gmail's Feedback-ID (Postmaster Tools' feedback loop): `town:kind:sender`. Complaint rates are
 * then shown per town and per kind of mail; the last field, the sender id, stays the same for the
 * whole stream. Signed by DKIM (src/integrations/mail/dkim.ts), as Gmail requires.
 */
export const FEEDBACK_SENDER_ID = "citydaily";

/** The kinds of reader mail: each its own Feedback-ID, so complaint rates show per kind. */
export type ReaderMailKind = "welcome" | "digest" | "weekly";

export function feedbackId(city: CityInfo, kind: ReaderMailKind): string {
  return `${city.slug}:${kind}:${FEEDBACK_SENDER_ID}`;
}

export function listHeaders(sender: Sender, city: CityInfo, links: MailLinks, kind: ReaderMailKind): Record<string, string> {
  return {
    // RFC 2919: one list per city.
    "List-Id": `"${asciiPhrase(`${city.name}, ${city.state} daily`)}" <${city.slug}.${listIdNamespace(sender.from)}>`,
    "List-Unsubscribe": `<${links.unsubscribe}>, <${links.unsubscribeMailto}>`,
    "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    "List-Archive": `<${links.city}>`,
    "Feedback-ID": feedbackId(city, kind),
  };
}
