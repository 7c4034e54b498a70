import type { SectionKey } from "../../contract/preferences.ts";
import { PRIVACY_LINE } from "./privacy.ts";
import { editionPreheader, htmlToPlainText, mailFooter, page, readOnWebHtml, shareHtml, shareLink, styleForEmail, type RenderedEmail } from "./email-render.ts";
import { listHeaders, mailLinks, type CityInfo, type Recipient, type Sender } from "./email-headers.ts";
import { dateParts } from "./escape.ts";
import { withoutSections } from "./hidden-sections.ts";
import { cadenceWords } from "../readers/preferences.ts";
import { HEADLINES_PART, listWords, OPENING_PART, QUIET_OPENING, quietWeekPreheader } from "./weekly.ts";
import { escapeHtml as e } from "../../lib/html.ts";

// The weekly email as one reader gets it: the town's weekly (src/core/edition/weekly.ts, composed once)
// in the email's frame, with the reader's own footer. It has no web page of its own: it links the
// daily editions it draws on.

export interface WeeklyInfo {
  date: string;
  subject: string;
  html: string;
}

/** The parts of a weekly that depend only on it, made once per weekly, not once per reader. */
export interface PreparedWeekly {
  date: string;
  subject: string;
  text: string;
  html: string;
  preheader: string;
}

/** The subject's town: every weekly's subject starts "{town} this week: " (weekly.ts `weeklySubject`). */
const SUBJECT_TOWN = /^(.+?) this week: /;

export function prepareWeekly(w: WeeklyInfo): PreparedWeekly {
  // The contents line leaves out the list of editions that closes every weekly.
  let preheader = editionPreheader(w.html.replace(/<h2>This week's editions<\/h2>/, ""), "This week");
  // A quiet week has only an empty "Coming up": its line says the week was quiet, as its opening does.
  const town = SUBJECT_TOWN.exec(w.subject)?.[1];
  if (preheader === "This week: Coming up" && town && w.html.includes(QUIET_OPENING)) preheader = quietWeekPreheader(town);
  return { date: w.date, subject: w.subject, text: htmlToPlainText(w.html), html: styleForEmail(w.html), preheader };
}

/**
 * The sections a reader may hide that the weekly has: only the headlines. Holidays, the fact, sun
 * times, air quality and the archive are the day's own and never in the weekly.
 */
export const WEEKLY_HIDEABLE: readonly SectionKey[] = ["headlines"];

/** The opening's list of what the weekly has (weekly.ts `weeklyOpening`). */
const OPENING = /Here is your week: ([^<.]*)\./;

/**
 * A weekly (its stored HTML) without the sections a reader hid: the week's headlines and the
 * opening's count of them, which would promise what is cut. The subject stays, as a daily's top
 * story does. Pure; the sender runs it once per weekly and set of hidden sections it has, not per reader.
 */
export function weeklyWithoutSections(html: string, hidden: readonly SectionKey[]): string {
  if (!hidden.includes("headlines")) return html;
  return withoutSections(html, hidden).replace(OPENING, (_all, list: string) => {
    const kept = (list.match(OPENING_PART) ?? []).filter((part) => !HEADLINES_PART.test(part));
    return kept.length ? `Here is your week: ${listWords(kept)}.` : "Here is your week.";
  });
}

const MUTED = 'class="muted-link" style="color:#4a5560"';

/** The weekday (0 = Sunday) of a YYYY-MM-DD date: a weekly comes on its readers' day. */
const weekdayOf = (date: string) => new Date(`${date}T12:00:00Z`).getUTCDay();

export function renderWeekly(sender: Sender, to: Recipient, city: CityInfo, weekly: WeeklyInfo | PreparedWeekly): RenderedEmail {
  const w = "preheader" in weekly ? weekly : prepareWeekly(weekly);
  const links = mailLinks(sender, to, city);
  const share = shareLink(links, to);
  const why = `You get this email because ${to.email} chose to get the ${city.name}, ${city.state} newsletter from citydaily ${cadenceWords("weekly", weekdayOf(w.date))}.`;
  // The weekly has no page of its own: "Read on the web" leads to the town's page, where its editions are.
  const onWeb = "Read this week's editions on the web";
  const text = [
    `${onWeb}: ${links.city}`, "", w.text, "",
    "FORWARD TO A NEIGHBOR", `Know someone in ${city.name} who would like this? Send them this link to subscribe: ${share}`, "",
    "--", why, PRIVACY_LINE,
    `Get it every morning, or on another day: ${links.manage}`,
    `Unsubscribe from ${city.name}: ${links.unsubscribe}`,
    `Advertise in ${city.name} or list your event: ${links.advertise}`,
    sender.postalAddress,
  ].join("\n");
  const footer = mailFooter(`${e(why)} ${PRIVACY_LINE}`,
    `<a href="${e(links.manage)}" ${MUTED}>Get it every morning, or on another day</a> &middot; <a href="${e(links.unsubscribe)}" ${MUTED}>Unsubscribe from ${e(city.name)}</a> &middot; <a href="${e(links.advertise)}" ${MUTED}>Advertise in ${e(city.name)}</a>`,
    sender.postalAddress);
  const html = page(w.subject, `${readOnWebHtml(links.city, onWeb)}\n${w.html}\n${shareHtml(city, share)}\n${footer}`, { preheader: w.preheader, dateline: `${city.name}, ${city.state} · the week to ${dateParts(w.date).long}` });
  return { to: to.email, from: sender.from, subject: w.subject, text, html, headers: listHeaders(sender, city, links, "weekly") };
}
