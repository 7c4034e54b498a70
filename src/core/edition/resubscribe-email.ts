import { mailFooter, page, styleForEmail, type RenderedEmail } from "./email-render.ts";
import type { Sender } from "./email-headers.ts";
import { cadenceWords } from "../readers/preferences.ts";
import { escapeHtml as e } from "../../lib/html.ts";

/** The outbox template of the email asking a suppressed address to confirm a new subscription. */
export const RESUBSCRIBE_TEMPLATE = "resubscribe_confirm";

export interface ResubscribeMailData {
  /** "Boise, Idaho": the place's name from the places table, never typed by the requester. */
  town: string;
  confirmUrl: string;
  /** When the link stops working (ISO). */
  expiresAt: string;
  /** Set when the address had chosen the town once a week, on this day (0 = Sunday): it would come back so. */
  weeklyDay?: number;
}

/** "the Boise, Idaho daily", or "Boise, Idaho once a week, on Saturdays" for a weekly reader coming back. */
export function resubscribeWhat(town: string, weeklyDay?: number): string {
  return weeklyDay === undefined ? `the ${town} daily` : `${town} ${cadenceWords("weekly", weeklyDay)}`;
}

/**
 * The one email a suppressed address gets when someone asks to subscribe it again. Anyone may have
 * asked, so it says only what the service knows (the town, the link, when it ends): no free text of
 * the request's. It is not list mail (no List-Unsubscribe): ignoring it is how to say no.
 */
export function renderResubscribeConfirm(sender: Sender, to: string, d: ResubscribeMailData): RenderedEmail {
  const what = resubscribeWhat(d.town, d.weeklyDay);
  const subject = `Confirm: subscribe to ${what} again?`;
  const until = `${d.expiresAt.replace("T", " ").slice(0, 16)} UTC`;
  const asked = d.weeklyDay === undefined ? `the ${d.town} daily newsletter` : `the ${d.town} newsletter, ${cadenceWords("weekly", d.weeklyDay)} as you had chosen`;
  const lines = [
    `Someone asked to subscribe this address to ${asked}. This address had stopped getting citydaily email, so nothing changes unless you confirm.`,
    "If it was you, open the link and press the button. It works once, until " + until + ".",
    "If it was not you, ignore this email: you will get no other.",
  ];
  const why = `citydaily sent this one email to ${to} because a subscription to it was asked for.`;
  const text = [lines[0], "", `Confirm: ${d.confirmUrl}`, "", lines[1], lines[2], "", "--", why, sender.postalAddress].join("\n");
  const body = styleForEmail(`<h1>${e(subject)}</h1>
<p>${e(lines[0])}</p>
<p><a href="${e(d.confirmUrl)}">Confirm ${e(what)}</a></p>
<p>${e(lines[1])}</p>
<p>${e(lines[2])}</p>`);
  const html = page(subject, `${body}\n${mailFooter(e(why), "", sender.postalAddress)}`, { preheader: lines[0], dateline: "Your subscription" });
  return { to, from: sender.from, subject, text, html, headers: { "Auto-Submitted": "auto-generated" } };
}
