import { DELIVERY_TIMES, HIDEABLE_SECTIONS, SECTION_KEYS, WEEKDAYS, type ReaderPreferences } from "../../../src/contract/preferences.ts";
import { timeZoneName } from "../../../src/core/places/zone-names.ts";
import { timeLabel, timeToMinute, WEEKDAY_NAMES } from "../../../src/core/readers/preferences.ts";
import type { ManageView } from "../../../src/services/readers/unsubscribe.ts";
import type { SubscriptionRow } from "../../../src/store/readers/subscribers.ts";
import { readerCity } from "../../../src/services/readers/preferences.ts";
import { escapeHtml as e } from "../../../src/lib/html.ts";

// The manage page's markup (api/routes/readers/manage-page.ts serves it): per town, a plain form of
// the reader's choices with visible labels, errors next to their field; no JavaScript.

export const place = (s: { name: string; state_name: string }) => `${s.name}, ${s.state_name}`;
export const dayName = (day: string) => WEEKDAY_NAMES[WEEKDAYS.indexOf(day as (typeof WEEKDAYS)[number])] ?? day;

/** What the reader sent for a town that did not pass, and why, by field. */
export interface FormErrors {
  slug: string;
  values: Partial<Record<"frequency" | "weeklyDay" | "deliveryTime", string>> & { hiddenSections?: string[] };
  byField: Record<string, string>;
}

const fieldError = (id: string, message: string | undefined) => (message ? `<p class="field-error" id="${id}-error">${e(message)}</p>` : "");
const invalid = (id: string, message: string | undefined) => (message ? ` aria-invalid="true" aria-describedby="${id}-error"` : "");

/** The choices form of one active town, filled with what is stored (or what was sent, after an error). */
function choicesForm(s: SubscriptionRow, errors: FormErrors | undefined): string {
  const stored: ReaderPreferences = readerCity(s).preferences;
  const mine = errors?.slug === s.slug ? errors : undefined;
  const v = { ...stored, ...mine?.values, hiddenSections: mine?.values.hiddenSections ?? stored.hiddenSections };
  const err = mine?.byField ?? {};
  const id = (name: string) => `${name}-${s.slug}`;
  const radio = (value: string, label: string) =>
    `<label class="choice"><input type="radio" name="frequency" value="${value}"${v.frequency === value ? " checked" : ""}${invalid(id("frequency"), err.frequency)}> ${label}</label>`;
  const days = WEEKDAYS.map((d, i) => `<option value="${d}"${v.weeklyDay === d ? " selected" : ""}>${WEEKDAY_NAMES[i]}</option>`).join("");
  const times = DELIVERY_TIMES.map((t) => `<option value="${t}"${v.deliveryTime === t ? " selected" : ""}>${timeLabel(timeToMinute(t)!)}</option>`).join("");
  const hidden = new Set(v.hiddenSections);
  const boxes = SECTION_KEYS.map((k) => `<label class="choice"><input type="checkbox" name="hiddenSections[]" value="${k}"${hidden.has(k) ? " checked" : ""}> ${e(HIDEABLE_SECTIONS[k])}</label>`).join("\n");
  // The day counts only with "Once a week": greyed by site.css (`.weekly-day`) and disabled by the
  // server page's script while "Every morning" is chosen; the server ignores a day sent with it.
  return `<form method="post" class="choices" aria-label="Choices for ${e(place(s))}">
<input type="hidden" name="city" value="${e(s.slug)}">
<fieldset><legend>How often</legend>
${radio("daily", "Every morning")}
${radio("weekly", "Once a week: the week in town, on the day below")}
${fieldError(id("frequency"), err.frequency)}
<div class="field weekly-day"><label for="${id("day")}">Day of the weekly email</label>
<p class="help" id="${id("day")}-help">Only with once a week.</p>
<select id="${id("day")}" name="weeklyDay" aria-describedby="${id("day")}-help${err.weeklyDay ? ` ${id("day")}-error` : ""}"${err.weeklyDay ? ' aria-invalid="true"' : ""}>${days}</select>
${fieldError(id("day"), err.weeklyDay)}</div>
</fieldset>
<div class="field"><label for="${id("time")}">Delivery time (${e(timeZoneName(s.timezone))})</label>
<p class="help" id="${id("time")}-help">Your email goes out at this time in ${e(s.name)}, never before the morning's edition is ready.</p>
<select id="${id("time")}" name="deliveryTime" aria-describedby="${id("time")}-help${err.deliveryTime ? ` ${id("time")}-error` : ""}"${err.deliveryTime ? ' aria-invalid="true"' : ""}>${times}</select>
${fieldError(id("time"), err.deliveryTime)}</div>
<fieldset><legend>Leave out of my email</legend>
${boxes}
${fieldError(id("sections"), err.hiddenSections)}
</fieldset>
<button type="submit">Save choices for ${e(s.name)}</button>
</form>`;
}

/** One line of what a town's reader gets now, for the confirmation and the page. */
export function summary(s: SubscriptionRow): string {
  const p = readerCity(s).preferences;
  const when = p.frequency === "weekly" ? `once a week, on ${dayName(p.weeklyDay)}s` : "every morning";
  const without = p.hiddenSections.length ? `, without ${p.hiddenSections.map((k) => HIDEABLE_SECTIONS[k].replace(/ \(.*\)$/, "")).join(", ")}` : "";
  return `${place(s)}: ${when} at ${timeLabel(s.delivery_minute)} ${timeZoneName(s.timezone)}${without}.`;
}

/** The manage page's body: every town of the address, the active ones with their choices. */
export function manageBody(view: ManageView, notice: string | undefined, errors?: FormErrors): string {
  const towns = view.subscriptions.map((s) => {
    const active = s.status === "active" && !view.suppressed;
    const again = s.status === "unsubscribed" && view.resubscribable;
    const heading = `<h2 id="town-${e(s.slug)}">${e(place(s))}</h2>`;
    if (active) {
      return `<li><section class="card" aria-labelledby="town-${e(s.slug)}">${heading}
<p class="status">${e(summary(s))}</p>
${choicesForm(s, errors)}
<form method="post"><input type="hidden" name="subscription" value="${s.id}"><button type="submit" class="secondary" aria-label="Unsubscribe from ${e(place(s))}">Unsubscribe</button></form>
</section></li>`;
    }
    const action = again
      ? `<form method="post"><input type="hidden" name="resubscribe" value="${s.id}"><button type="submit" aria-label="Subscribe again to ${e(place(s))}">Subscribe again</button></form>`
      : "";
    return `<li><section class="card" aria-labelledby="town-${e(s.slug)}">${heading}<p class="status">${again ? "unsubscribed" : s.status === "active" ? "stopped" : e(s.status)}</p>${action}</section></li>`;
  }).join("\n");
  const anyActive = !view.suppressed && view.subscriptions.some((s) => s.status === "active");
  const status = errors ? `<p role="alert" class="form-error">Nothing was saved: see the message next to the field.</p>` : notice ? `<p role="status" class="notice">${e(notice)}</p>` : "";
  return `${status}
<p>Newsletters for ${e(view.email)}. For each town, choose how often and when it comes, and what to leave out.</p>
<ul class="cards">${towns}</ul>
${anyActive ? `<form method="post"><input type="hidden" name="all" value="1"><button type="submit" class="secondary">Unsubscribe from every city</button></form>` : "<p>This address gets no citydaily email.</p>"}`;
}
