/**
 * Pure rendering of the emails citydaily sends: welcome and daily digest, each with an HTML and a
 * plain-text part, the list headers inbox providers require (List-Id, List-Unsubscribe with https
 * and mailto, List-Unsubscribe-Post for RFC 8058 one-click: src/core/edition/email-headers.ts) and a
 * footer with the postal address.
 */
import { PRIVACY_LINE } from "./privacy.ts";
import { convert } from "html-to-text";
import { listHeaders, mailLinks, type CityInfo, type MailLinks, type Recipient, type Sender } from "./email-headers.ts";
import { cadenceWords, WEEKDAY_NAMES } from "../readers/preferences.ts";
import { withoutLegacyFooter, withoutMissingForecastCredit, withoutWeatherEmoji } from "./web-edition.ts";
import { escapeHtml } from "../../lib/html.ts";

// The addressing the renderers take, for their callers.

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

/**
 * Why the reader gets the email, naming how often they get it: the daily's words, or for a reader
 * of the weekly (`weeklyDay`, 0 = Sunday) once a week on their day.
 */
function whyLine(email: string, city: CityInfo, weeklyDay?: number): string {
  return weeklyDay === undefined
    ? `You get this email because ${email} subscribed to the ${city.name}, ${city.state} daily newsletter from citydaily.`
    : `You get this email because ${email} subscribed to the ${city.name}, ${city.state} newsletter from citydaily, ${cadenceWords("weekly", weeklyDay)}.`;
}

/** `daily`: the footer of a daily digest, which offers the weekly email instead; `weeklyDay`: a weekly reader's. */
function footerText(sender: Sender, to: Recipient, city: CityInfo, links: MailLinks, daily = false, weeklyDay?: number): string {
  return [
    "--",
    whyLine(to.email, city, weeklyDay),
    PRIVACY_LINE,
    `Manage your cities: ${links.manage}`,
    ...(daily ? [`Get this once a week instead: ${links.weekly}`] : []),
    `Unsubscribe from ${city.name}: ${links.unsubscribe}`,
    `Advertise in ${city.name} or list your event: ${links.advertise}`,
    `Add the ${city.name} calendar to your calendar app: ${links.calendar}`,
    sender.postalAddress,
  ].join("\n");
}

function footerHtml(sender: Sender, to: Recipient, city: CityInfo, links: MailLinks, daily = false, weeklyDay?: number): string {
  const weekly = daily ? ` &middot; <a href="${e(links.weekly)}" class="muted-link" style="color:#4a5560">Get this once a week instead</a>` : "";
  return mailFooter(
    `${e(whyLine(to.email, city, weeklyDay))} ${PRIVACY_LINE}`,
    `<a href="${e(links.manage)}" class="muted-link" style="color:#4a5560">Manage your cities</a>${weekly} &middot; <a href="${e(links.unsubscribe)}" class="muted-link" style="color:#4a5560">Unsubscribe from ${e(city.name)}</a> &middot; <a href="${e(links.advertise)}" class="muted-link" style="color:#4a5560">Advertise in ${e(city.name)}</a> &middot; <a href="${e(links.calendar)}" class="muted-link" style="color:#4a5560">Add the ${e(city.name)} calendar</a>`,
    sender.postalAddress,
  );
}

const e = escapeHtml;

/** The small print under every email: why it came, what to do about it, the postal address. */
export function mailFooter(why: string, actionsHtml: string, postalAddress: string): string {
  return `<div class="footer" style="border-top:1px solid #d9d4c7;margin-top:32px;padding-top:16px;font-family:${SANS};font-size:13px;line-height:1.5;color:#4a5560">
<p style="margin:0 0 8px">${why}</p>
${actionsHtml ? `<p style="margin:0 0 8px">${actionsHtml}</p>` : ""}
<p style="margin:0">${e(postalAddress)}</p>
</div>`;
}

const SANS = `-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif`;
const SERIF = `Charter,'Bitstream Charter','Sitka Text',Cambria,Georgia,serif`;

/**
 * Inline styles for the tags an edition's HTML is made of (src/core/edition/compose.ts renderEditionHtml):
 * several webmail clients drop <head> styles, so the look that matters is on each element; the
 * <style> block only adds the phone and dark-mode adjustments.
 */
const TAG_STYLE: Record<string, string> = {
  h1: `font-family:${SANS};font-size:26px;line-height:1.25;margin:0 0 12px;color:#1b1f23`,
  h2: `font-family:${SANS};font-size:19px;line-height:1.3;margin:28px 0 8px;padding-top:12px;border-top:1px solid #d9d4c7;color:#1b1f23`,
  h3: `font-family:${SANS};font-size:16px;line-height:1.3;margin:20px 0 6px;color:#1b1f23`,
  p: "margin:0 0 14px",
  ul: "margin:0 0 14px;padding-left:22px",
  li: "margin:0 0 6px",
  table: `border-collapse:collapse;width:100%;font-family:${SANS};font-size:14px;line-height:1.4;margin:0 0 14px`,
  th: "text-align:left;padding:6px 6px;border-bottom:2px solid #1b1f23;font-weight:600",
  td: "text-align:left;padding:6px 6px;border-bottom:1px solid #d9d4c7;vertical-align:top",
  a: "color:#0b5c8a",
  hr: "border:none;border-top:1px solid #d9d4c7;margin:24px 0",
};

/** Puts TAG_STYLE on each tag of trusted (sanitised) HTML; a cell's `align` becomes text-align. */
export function styleForEmail(html: string): string {
  return html.replace(/<(h1|h2|h3|p|ul|li|table|th|td|a|hr)(\s[^>]*)?>/g, (_m, tag: string, attrs = "") => {
    let style = TAG_STYLE[tag];
    // The edition's HTML marks number columns with class="num" (src/core/edition/compose.ts): right-aligned, as on the web.
    const align = /\salign="(left|right|center)"/.exec(attrs)?.[1] ?? /text-align:\s*(left|right|center)/.exec(attrs)?.[1]
      ?? (/\sclass="num"/.test(attrs) ? "right" : /\sclass="center"/.test(attrs) ? "center" : undefined);
    const rest = attrs.replace(/\s(align|style)="[^"]*"/g, "");
    if (align) style = style.replace(/text-align:left/, `text-align:${align}`);
    if (tag === "table") return `<div class="table-wrap" style="overflow-x:auto"><table role="table"${rest} style="${style}">`;
    return `<${tag}${rest} style="${style}">`;
  }).replace(/<\/table>/g, "</table></div>");
}

export interface PageOptions {
  /**
   * The line inbox lists show after the subject. It is shown at the top of the message in plain
   * sight: hidden text (1 px, the background's colour) is what spam filters look for
   * (SpamAssassin's HTML_FONT_LOW_CONTRAST, and FONT_INVIS_MSGID beside a real domain's Message-ID).
   * Left out when the body says it already (the inbox then shows the body's own first words).
   */
  preheader?: string;
  /** Under the masthead, e.g. the town and date. */
  dateline?: string;
}

/**
 * The email document: the preheader line, the masthead, a 600 px column that becomes the full width
 * on a phone, and dark-mode colours for clients that honour `prefers-color-scheme`. Desktop Outlook
 * ignores max-width, so a fixed 600 px table holds the column there (`<!--[if mso]>`), and it draws
 * at 96 dpi whatever the screen's scaling.
 */
export function page(title: string, body: string, opts: PageOptions): string {
  const preheader = opts.preheader && !body.includes(e(opts.preheader))
    ? `<div class="preheader" style="max-width:600px;margin:0 auto;padding:0 0 10px;text-align:left;font-family:${SANS};font-size:13px;line-height:1.45;color:#4a5560">${e(opts.preheader)}</div>\n`
    : "";
  return `<!doctype html>
<html lang="en" xmlns:o="urn:schemas-microsoft-com:office:office"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="color-scheme" content="light dark"><meta name="supported-color-schemes" content="light dark">
<title>${e(title)}</title>
<!--[if mso]><noscript><xml><o:OfficeDocumentSettings><o:PixelsPerInch>96</o:PixelsPerInch></o:OfficeDocumentSettings></xml></noscript><![endif]-->
<style>
:root{color-scheme:light dark;supported-color-schemes:light dark}
body{margin:0;padding:0;-webkit-text-size-adjust:100%}
@media (max-width:620px){
  .outer{padding:0!important}
  .preheader{padding:10px 16px!important}
  .column{border-radius:0!important;border-left:0!important;border-right:0!important}
  .body-cell{padding:20px 16px!important;font-size:16px!important}
  .masthead-cell{padding:16px!important}
  .body-cell table{font-size:13px!important}
  .body-cell th,.body-cell td{padding:5px 4px!important}
}
@media (prefers-color-scheme:dark){
  body,.outer{background:#111417!important}
  .column,.masthead-cell,.body-cell{background:#1b1f23!important;color:#e8e6e1!important;border-color:#3a4148!important}
  .body-cell h1,.body-cell h2,.body-cell h3,.brand-ink{color:#f3f1ec!important}
  .brand-warm{color:#f08a5d!important}
  .body-cell a{color:#7cc0ea!important}
  .preheader,.dateline,.footer,.muted-link,.footer a{color:#a9b3bc!important}
  .body-cell h2,.body-cell td,.body-cell th,.body-cell hr,.footer,.masthead-cell{border-color:#3a4148!important}
  .body-cell th{border-bottom-color:#a9b3bc!important}
}
</style></head>
<body style="margin:0;padding:0;background:#f3f1ec">
<table role="presentation" class="outer" width="100%" cellpadding="0" cellspacing="0" border="0" style="background:#f3f1ec;padding:24px 8px">
<tr><td align="center">
<!--[if mso]><table role="presentation" align="center" width="600" cellpadding="0" cellspacing="0" border="0"><tr><td width="600"><![endif]-->
${preheader}<table role="presentation" class="column" width="600" cellpadding="0" cellspacing="0" border="0" style="width:100%;max-width:600px;background:#fdfcf9;border:1px solid #d9d4c7;border-radius:8px">
<tr><td class="masthead-cell" style="padding:20px 32px;border-bottom:3px solid #1b1f23;background:#ffffff;border-radius:8px 8px 0 0">
<div class="masthead" style="font-family:${SANS};font-size:24px;font-weight:700;letter-spacing:-0.01em;line-height:1.2"><span class="brand-ink" style="color:#1b1f23">city</span><span class="brand-warm" style="color:#a23b12">daily</span></div>
${opts.dateline ? `<div class="dateline" style="font-family:${SANS};font-size:13px;color:#4a5560;margin-top:4px">${e(opts.dateline)}</div>` : ""}
</td></tr>
<tr><td class="body-cell" style="padding:28px 32px;font-family:${SERIF};font-size:17px;line-height:1.6;color:#1b1f23">
${body}
</td></tr>
</table>
<!--[if mso]></td></tr></table><![endif]-->
</td></tr>
</table>
</body></html>`;
}

/**
 * The plain-text part from the email's own HTML: headings as their words, tables as aligned
 * columns, links as "text <url>", lists with dashes. No markdown syntax reaches the reader.
 */
export function htmlToPlainText(html: string): string {
  return convert(html, {
    wordwrap: 76,
    selectors: [
      { selector: "h1", options: { uppercase: false, leadingLineBreaks: 0, trailingLineBreaks: 2 } },
      { selector: "h2", options: { uppercase: true, leadingLineBreaks: 2, trailingLineBreaks: 1 } },
      { selector: "h3", options: { uppercase: false } },
      { selector: "table", format: "dataTable", options: { uppercaseHeaderCells: false, colSpacing: 3, maxColumnWidth: 30 } },
      { selector: "ul", options: { itemPrefix: " - " } },
      { selector: "a", options: { linkBrackets: ["<", ">"], hideLinkHrefIfSameAsText: true } },
      { selector: "hr", format: "skip" },
    ],
  }).replace(/\n{3,}/g, "\n\n").trim();
}

/**
 * The edition's contents in one line ("In this edition: Weather · On the calendar · ..."): the
 * preheader, at the top of the message and after the subject in inbox lists.
 */
export function editionPreheader(editionHtml: string, prefix = "In this edition", max = 160): string {
  const headings = [...editionHtml.matchAll(/<h2[^>]*>([\s\S]*?)<\/h2>/g)].map((m) => htmlToPlainText(m[1]!).replace(/\s+/g, " ").trim()).filter(Boolean);
  if (headings.length === 0) return "";
  let line = `${prefix}: ${headings[0]}`;
  for (const h of headings.slice(1)) {
    if (line.length + h.length + 3 > max) return `${line} and more`;
    line += ` · ${h}`;
  }
  return line;
}

export function renderWelcome(sender: Sender, to: Recipient, city: CityInfo, firstDigest: "today" | "next", weeklyDay?: number): RenderedEmail {
  if (weeklyDay !== undefined) return renderWeeklyWelcome(sender, to, city, weeklyDay);
  const links = mailLinks(sender, to, city);
  const place = `${city.name}, ${city.state}`;
  const when = firstDigest === "today"
    ? "Today's edition is on its way in a separate email."
    : `Your first edition arrives with ${city.name}'s next morning edition, published early in the morning, local time.`;
  const subject = `Welcome to the ${place} daily`;
  const text = [
    `Welcome to the ${place} daily newsletter.`,
    "",
    `Every morning you will get ${city.name}'s edition: weather warnings and the forecast, what is on in town, local headlines, and a fact about the place.`,
    when,
    "",
    `Read past editions: ${links.city}`,
    "",
    footerText(sender, to, city, links),
  ].join("\n");
  const body = styleForEmail(`<h1>Welcome to the ${e(place)} daily</h1>
<p>Every morning you will get ${e(city.name)}'s edition: weather warnings and the forecast, what is on in town, local headlines, and a fact about the place.</p>
<p>${e(when)}</p>
<p><a href="${e(links.city)}">Read past editions of ${e(city.name)}</a></p>`);
  const html = page(subject, `${body}\n${footerHtml(sender, to, city, links)}`, {
    preheader: `Your ${city.name} edition arrives each morning: forecast, what is on, sunrise and sunset.`,
    dateline: `${place} · daily newsletter`,
  });
  return { to: to.email, from: sender.from, subject, text, html, headers: listHeaders(sender, city, links, "welcome") };
}

/** A reader who chose once a week (one coming back to a town they had set so) is welcomed to the weekly, not the daily. */
function renderWeeklyWelcome(sender: Sender, to: Recipient, city: CityInfo, weeklyDay: number): RenderedEmail {
  const links = mailLinks(sender, to, city);
  const place = `${city.name}, ${city.state}`;
  const day = WEEKDAY_NAMES[weeklyDay] ?? "Saturday";
  const what = `Every ${day} morning you will get ${city.name}'s week: its headlines, what is coming up in the next seven days, the forecast, and any warning still in force.`;
  const subject = `Welcome to ${place}, once a week`;
  const text = [`Welcome to the ${place} newsletter, once a week.`, "", what, "", `Read the daily editions: ${links.city}`, "", footerText(sender, to, city, links, false, weeklyDay)].join("\n");
  const body = styleForEmail(`<h1>Welcome to ${e(place)}, once a week</h1>
<p>${e(what)}</p>
<p><a href="${e(links.city)}">Read the daily editions of ${e(city.name)}</a></p>`);
  const html = page(subject, `${body}\n${footerHtml(sender, to, city, links, false, weeklyDay)}`, {
    preheader: `Your ${city.name} week arrives every ${day}: headlines, what is coming up, the forecast.`,
    dateline: `${place} · weekly newsletter`,
  });
  return { to: to.email, from: sender.from, subject, text, html, headers: listHeaders(sender, city, links, "welcome") };
}

/** The parts of a digest that depend only on the edition, made once per edition, not once per reader. */
export interface PreparedEdition {
  date: string;
  subject: string;
  text: string;
  html: string;
  preheader: string;
  /** "Sunday, November 22, 2026" (Intl is slow enough to matter once per reader). */
  longDate: string;
}

export function prepareEdition(edition: EditionInfo): PreparedEdition {
  // Editions stored before the text went emoji-free lose their weather emoji here (the words stay).
  const html = withoutLegacyFooter(withoutMissingForecastCredit(withoutWeatherEmoji(edition.html)));
  return { date: edition.date, subject: edition.subject, text: htmlToPlainText(html), html: styleForEmail(html), preheader: editionPreheader(html), longDate: longDate(edition.date) };
}

export function renderDigest(sender: Sender, to: Recipient, city: CityInfo, edition: EditionInfo | PreparedEdition): RenderedEmail {
  const prepared = "preheader" in edition ? edition : prepareEdition(edition);
  const links = mailLinks(sender, to, city);
  const onWeb = `${links.city}/${prepared.date}`;
  const share = shareLink(links, to);
  const text = [
    `Read on the web: ${onWeb}`, "", prepared.text, "",
    `FORWARD TO A NEIGHBOR`, `Know someone in ${city.name} who would like this? Send them this link to subscribe: ${share}`, "",
    footerText(sender, to, city, links, true),
  ].join("\n");
  const html = page(prepared.subject, `${readOnWebHtml(onWeb)}
${prepared.html}
${shareHtml(city, share)}
${footerHtml(sender, to, city, links, true)}`, { preheader: prepared.preheader, dateline: `${city.name}, ${city.state} · ${prepared.longDate}` });
  return { to: to.email, from: sender.from, subject: prepared.subject, text, html, headers: listHeaders(sender, city, links, "digest") };
}

/** The town's subscribe link with the reader's referral code: a subscription through it is counted for them. */
export function shareLink(links: MailLinks, to: Recipient): string {
  return to.ref ? `${links.city}?ref=${encodeURIComponent(to.ref)}` : links.city;
}

/** The small link above an email's text to read it on the web. */
export function readOnWebHtml(url: string, words = "Read on the web"): string {
  return `<p style="font-family:${SANS};font-size:13px;color:#4a5560;margin:0 0 16px"><a href="${e(url)}" class="muted-link" style="color:#4a5560">${e(words)}</a></p>`;
}

/** The "Forward to a neighbor" box of the daily and the weekly. */
export function shareHtml(city: CityInfo, share: string): string {
  // The link is shown in full and may be long: it breaks anywhere rather than widen a phone's screen.
  return `<div class="share" style="margin:28px 0 0;padding:14px 16px;border:1px solid #d9d4c7;border-radius:6px;font-family:${SANS};font-size:15px;line-height:1.5">
<p style="margin:0 0 6px"><strong>Forward to a neighbor.</strong> Know someone in ${e(city.name)} who would like this? Send them this link to subscribe:</p>
<p style="margin:0;overflow-wrap:anywhere;word-break:break-all"><a href="${e(share)}" style="color:#0b5c8a">${e(share)}</a></p>
</div>`;
}

/** "Monday, November 23, 2026" for a YYYY-MM-DD date (read as a calendar day, not a UTC instant). */
function longDate(date: string): string {
  return new Date(`${date}T12:00:00Z`).toLocaleDateString("en-US", { weekday: "long", month: "long", day: "numeric", year: "numeric", timeZone: "UTC" });
}
