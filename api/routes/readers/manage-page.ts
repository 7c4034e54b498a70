import type { H3, H3Event } from "h3";
import { ReaderPreferencesUpdate } from "../../../src/contract/preferences.ts";
import { toFieldIssues } from "../../../src/core/errors.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { readerCity, switchToWeekly, updateCityPreferences } from "../../../src/services/readers/preferences.ts";
import { manageView, resolveToken, resubscribeCityOfAddress, unsubscribeByToken, unsubscribeCityOfAddress } from "../../../src/services/readers/unsubscribe.ts";
import { readBodyText } from "../../http/body.ts";
import { htmlPage } from "../../http/html-page.ts";
import { dayName, manageBody, place, summary, type FormErrors } from "./manage-markup.ts";
import { escapeHtml as e } from "../../../src/lib/html.ts";

/**
 * The reader's own pages, outside the public API (links in every email):
 *   GET  /subscriptions/{token}  the manage page: every town of the address, and for each active one
 *                                how often (every morning, or once a week on a day), when (5:00 to
 *                                9:00 AM local) and which sections to leave out.
 *   POST /subscriptions/{token}  `city={slug}` with the choices saves them; `subscription={id}` leaves
 *                                one town, `resubscribe={id}` follows it again, `all=1` leaves them all.
 *   GET  /weekly/{token}         the daily footer's "Get this once a week instead": one button; a GET
 *                                never changes anything, so link scanners cannot.
 *   POST /weekly/{token}         that town once a week, on Saturday; then the page's own GET
 *                                (`?done=weekly`) confirms it.
 * The token is the unsubscribe token (src/core/readers/unsubscribe-tokens.ts): it proves the address.
 */

const invalid = (ctx: AppContext) =>
  htmlPage(ctx, 404, "This link is not valid", "<p>The link may be incomplete. Use the \"Manage your cities\" link from your most recent email.</p>");

/** The posted form; an oversized one counts as empty (these pages answer in HTML, not problem+json). */
export async function formBody(event: H3Event): Promise<URLSearchParams> {
  return new URLSearchParams(await readBodyText(event).catch(() => ""));
}

const FIELD_WORDS: Record<string, string> = {
  frequency: "Choose every morning or once a week.",
  weeklyDay: "Choose a day of the week.",
  deliveryTime: "Choose a time from 5:00 to 9:00 AM.",
  hiddenSections: "Choose only sections from this list.",
};

/**
 * The form's choices as the contract takes them; each field that does not pass gets its message.
 * The day of the weekly counts only with "Once a week": the page greys it out (and with JavaScript
 * disables it) while "Every morning" is chosen, and a day sent anyway changes nothing.
 */
function readChoices(form: URLSearchParams): { update?: ReaderPreferencesUpdate; errors?: FormErrors["byField"]; values: FormErrors["values"] } {
  const frequency = form.get("frequency") ?? undefined;
  const values = {
    frequency,
    weeklyDay: frequency === "daily" ? undefined : form.get("weeklyDay") ?? undefined,
    deliveryTime: form.get("deliveryTime") ?? undefined,
    hiddenSections: form.getAll("hiddenSections[]"),
  };
  const parsed = ReaderPreferencesUpdate.safeParse(values);
  if (parsed.success) return { update: parsed.data, values };
  const errors: Record<string, string> = {};
  for (const issue of toFieldIssues(parsed.error.issues)) {
    const field = issue.path.split(".")[0] || "frequency";
    errors[field] ??= FIELD_WORDS[field] ?? issue.message;
  }
  return { errors, values };
}

/** What a post did, said by the page it redirects to (`?done=`): fixed words, never text from the address. */
type Done = "saved" | "all" | "again" | "unsubscribed" | "unchanged";
const DONE: Record<Done, string> = {
  saved: "Saved.",
  all: "You are unsubscribed from every city.",
  again: "Subscribed again: a welcome email is on its way.",
  unsubscribed: "Unsubscribed.",
  unchanged: "Nothing changed.",
};
/** The once-a-week page's: its notice goes on with what is stored now (the day, the time). */
const WEEKLY_DONE = { weekly: "Done:" } as const;
const doneOf = <K extends string>(table: Record<K, string>, q: string | null): K | undefined => (q !== null && Object.hasOwn(table, q) ? (q as K) : undefined);

/** After a post that did something (or nothing), the page is a GET of its own (303): a reload shows it again and posts nothing. */
function seeOwnPage(path: string, token: string, done?: string, slug?: string): Response {
  const query = new URLSearchParams([...(done ? [["done", done]] : []), ...(slug ? [["city", slug]] : [])]).toString();
  const location = `/${path}/${encodeURIComponent(token)}${query ? `?${query}` : ""}`;
  // The address carries the token: no Referer, no cache, as for the page itself.
  return new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" } });
}
const seeManagePage = (token: string, done: Done, slug?: string) => seeOwnPage("subscriptions", token, done, slug);

export function managePageRoutes(app: H3, ctx: AppContext): void {
  const managePage = (token: string, notice?: string, errors?: FormErrors) => {
    const view = manageView(ctx, token);
    if (!view) return invalid(ctx);
    return htmlPage(ctx, errors ? 400 : 200, "Your citydaily newsletters", manageBody(view, notice, errors));
  };
  app.get("/subscriptions/:token", (event) => {
    const token = event.context.params!.token;
    const query = event.url.searchParams;
    const done = doneOf(DONE, query.get("done"));
    if (done !== "saved") return managePage(token, done && DONE[done]);
    // "Saved." with what the town's reader gets now.
    const saved = manageView(ctx, token)?.subscriptions.find((s) => s.slug === query.get("city") && s.status === "active");
    return managePage(token, saved ? `${DONE.saved} ${summary(saved)}` : DONE.saved);
  });

  app.post("/subscriptions/:token", async (event) => {
    const token = event.context.params!.token;
    const form = await formBody(event);
    if (!resolveToken(ctx, token)) return invalid(ctx);
    if (form.has("city")) return saveChoices(token, form.get("city")!, form);
    if (form.get("all") === "1") {
      if (!(await unsubscribeByToken(ctx, token, "all", "manage page"))) return invalid(ctx);
      return seeManagePage(token, "all");
    }
    if (form.has("resubscribe")) {
      const again = Number(form.get("resubscribe"));
      if (!Number.isInteger(again) || !(await resubscribeCityOfAddress(ctx, token, again))) return seeManagePage(token, "unchanged");
      return seeManagePage(token, "again");
    }
    const id = Number(form.get("subscription"));
    if (!Number.isInteger(id) || !(await unsubscribeCityOfAddress(ctx, token, id))) return seeManagePage(token, "unchanged");
    return seeManagePage(token, "unsubscribed");
  });

  const saveChoices = async (token: string, slug: string, form: URLSearchParams) => {
    const { update, errors, values } = readChoices(form);
    // A form that does not pass is the answer itself (400), with what was sent and why, next to each field.
    if (!update) return managePage(token, undefined, { slug, values, byField: errors! });
    try {
      const city = await updateCityPreferences(ctx, token, slug, update);
      return seeManagePage(token, "saved", city.slug);
    } catch {
      return seeManagePage(token, "unchanged");
    }
  };

  app.get("/weekly/:token", (event) => {
    const token = event.context.params!.token;
    const sub = resolveToken(ctx, token);
    if (!sub) return invalid(ctx);
    const manage = `/subscriptions/${encodeURIComponent(token)}`;
    if (sub.status !== "active") {
      return htmlPage(ctx, 200, "You are unsubscribed", `<p>${e(sub.email)} no longer gets the ${e(place(sub))} newsletter.</p><p><a href="${manage}">Manage your cities</a></p>`);
    }
    if (sub.frequency === "weekly") {
      // After the button (`?done=weekly`, a GET of its own): the confirmation, from what is stored now.
      const done = doneOf(WEEKLY_DONE, event.url.searchParams.get("done"));
      if (done) {
        return htmlPage(ctx, 200, `${sub.name} once a week`, `<p role="status" class="notice">${WEEKLY_DONE[done]} ${e(sub.email)} gets ${e(sub.name)} once a week, on ${dayName(readerCity(sub).preferences.weeklyDay)}s, instead of every morning.</p>
<p>${e(summary(sub))}</p>
<p><a href="${manage}">Change the day, the time or the sections</a> · <a href="/${encodeURIComponent(sub.slug)}">Read the ${e(sub.name)} edition on the web</a></p>`);
      }
      return htmlPage(ctx, 200, `${sub.name} comes once a week`, `<p>${e(sub.email)} gets ${e(summary(sub))}</p><p><a href="${manage}">Change the day, the time or the sections</a></p>`);
    }
    return htmlPage(ctx, 200, `Get ${place(sub)} once a week?`, `<p>Instead of every morning, ${e(sub.email)} would get one email on Saturday: the week in ${e(sub.name)}, its headlines, and what is coming.</p>
<form method="post"><button type="submit">Send me ${e(sub.name)} once a week</button></form>
<p>Or choose another day, a delivery time and what to leave out on <a href="${manage}">the page of your cities</a>.</p>`);
  });

  app.post("/weekly/:token", async (event) => {
    const token = event.context.params!.token;
    const sub = resolveToken(ctx, token);
    if (!sub) return invalid(ctx);
    // An unsubscribed town changes nothing: its GET says so.
    if (sub.status !== "active") return seeOwnPage("weekly", token);
    await switchToWeekly(ctx, token);
    return seeOwnPage("weekly", token, "weekly");
  });
}
