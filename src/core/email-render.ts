/**
 * Pure rendering of the emails citydaily sends: welcome and daily digest, each with an HTML and a
 * plain-text part, the list headers inbox providers require (List-Id, List-Unsubscribe with https
 * and mailto, List-Unsubscribe-Post for RFC 8058 one-click) and a footer with the postal address.
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
  /** Signed subscriber token (src/core/tokens.ts) for the unsubscribe and manage links. */
  token: string;
}

export interface CityInfo {
  name: string;
  state: string;
  slug: string;
}

export interface EditionInfo {
  date: string;
  subject: string;
  html: string;
  markdown: string;
}

export interface RenderedEmail {
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** The domain of the From address (also names the lists and the unsubscribe mailbox). */
export function senderDomain(from: string): string {
  const m = /@([^\s>]+)>?\s*$/.exec(from);
  return m ? m[1].toLowerCase() : "localhost";
}

export interface MailLinks {
  /** GET: confirmation page; POST: RFC 8058 one-click unsubscribe from this city. */
  unsubscribe: string;
  /** Mail to this address (subject carries the token) to unsubscribe. */
  unsubscribeMailto: string;
  /** All cities of this address, unsubscribe from one or all. */
  manage: string;
  city: string;
}

export function mailLinks(sender: Sender, to: Recipient, city: CityInfo): MailLinks {
  const token = encodeURIComponent(to.token);
  return {
    unsubscribe: `${sender.baseUrl}/unsubscribe/${token}`,
    unsubscribeMailto: `mailto:unsubscribe@${senderDomain(sender.from)}?subject=unsubscribe%20${token}`,
    manage: `${sender.baseUrl}/subscriptions/${token}`,
    city: `${sender.baseUrl}/${city.slug}`,
  };
}

/** Header values are sent as written, so they must be plain ASCII: accents folded, quotes dropped. */
function asciiPhrase(s: string): string {
  return s.normalize("NFKD").replace(/[^\x20-\x7e]/g, "").replace(/["\\]/g, "");
}

function listHeaders(sender: Sender, city: CityInfo, links: MailLinks): Record<string, string> {
  return {
    // RFC 2919: one list per city.
    "List-Id": `"${asciiPhrase(`${city.name}, ${city.state} daily`)}" <${city.slug}.${senderDomain(sender.from)}>`,
    "List-Unsubscribe": `<${links.unsubscribe}>, <${links.unsubscribeMailto}>`,
    "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    "List-Archive": `<${links.city}>`,
  };
}

function footerText(sender: Sender, to: Recipient, city: CityInfo, links: MailLinks): string {
  return [
    "--",
    `You get this email because ${to.email} subscribed to the ${city.name}, ${city.state} daily newsletter from citydaily.`,
    `Manage your cities: ${links.manage}`,
    `Unsubscribe from ${city.name}: ${links.unsubscribe}`,
    sender.postalAddress,
  ].join("\n");
}

function footerHtml(sender: Sender, to: Recipient, city: CityInfo, links: MailLinks): string {
  const e = escapeHtml;
  return `<hr style="border:none;border-top:1px solid #ddd;margin:32px 0 16px">
<footer style="font-size:13px;line-height:1.5;color:#555">
<p>You get this email because ${e(to.email)} subscribed to the ${e(city.name)}, ${e(city.state)} daily newsletter from citydaily.</p>
<p><a href="${e(links.manage)}" style="color:#1a55a3">Manage your cities</a> &middot; <a href="${e(links.unsubscribe)}" style="color:#1a55a3">Unsubscribe from ${e(city.name)}</a></p>
<address style="font-style:normal">${e(sender.postalAddress)}</address>
</footer>`;
}

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title></head>
<body style="margin:0;padding:0;background:#f6f6f4">
<div style="max-width:640px;margin:0 auto;padding:24px;background:#ffffff;font-family:Georgia,'Times New Roman',serif;font-size:17px;line-height:1.55;color:#1b1b1b">
${body}
</div>
</body></html>`;
}

export function renderWelcome(sender: Sender, to: Recipient, city: CityInfo, firstDigest: "today" | "next"): RenderedEmail {
  const links = mailLinks(sender, to, city);
  const place = `${city.name}, ${city.state}`;
  const when = firstDigest === "today"
    ? "Today's edition is on its way in a separate email."
    : `Your first edition arrives with ${city.name}'s next morning edition, published early in the morning, local time.`;
  const subject = `Welcome to the ${place} daily`;
  const text = [
    `Welcome to the ${place} daily newsletter.`,
    "",
    `Every morning you will get ${city.name}'s edition: the forecast, what is on in town, sunrise and sunset, and a fact about the place.`,
    when,
    "",
    `Read past editions: ${links.city}`,
    "",
    footerText(sender, to, city, links),
  ].join("\n");
  const e = escapeHtml;
  const html = page(subject, `<h1 style="font-size:26px;margin:0 0 16px">Welcome to the ${e(place)} daily</h1>
<p>Every morning you will get ${e(city.name)}'s edition: the forecast, what is on in town, sunrise and sunset, and a fact about the place.</p>
<p>${e(when)}</p>
<p><a href="${e(links.city)}" style="color:#1a55a3">Read past editions of ${e(city.name)}</a></p>
${footerHtml(sender, to, city, links)}`);
  return { to: to.email, from: sender.from, subject, text, html, headers: listHeaders(sender, city, links) };
}

export function renderDigest(sender: Sender, to: Recipient, city: CityInfo, edition: EditionInfo): RenderedEmail {
  const links = mailLinks(sender, to, city);
  const onWeb = `${links.city}/${edition.date}`;
  const text = [edition.markdown.trim(), "", `Read on the web: ${onWeb}`, "", footerText(sender, to, city, links)].join("\n");
  const html = page(edition.subject, `<p style="font-size:13px;color:#555;margin:0 0 16px"><a href="${escapeHtml(onWeb)}" style="color:#555">Read on the web</a></p>
${edition.html}
${footerHtml(sender, to, city, links)}`);
  return { to: to.email, from: sender.from, subject: edition.subject, text, html, headers: listHeaders(sender, city, links) };
}
