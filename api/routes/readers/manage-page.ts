import type { H3, H3Event } from "h3";
import { ReaderPreferencesUpdate } from "../../../src/contract/preferences.ts";
import { escapeHtml as e } from "../../../src/core/edition/email-render.ts";
import { toFieldIssues } from "../../../src/core/errors.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { switchToWeekly, updateCityPreferences } from "../../../src/services/readers/preferences.ts";
import { manageView, resolveToken, resubscribeCityOfAddress, unsubscribeByToken, unsubscribeCityOfAddress } from "../../../src/services/readers/unsubscribe.ts";
import { findSubscription } from "../../../src/store/readers/subscribers.ts";
import { readBodyText } from "../../body.ts";
import { htmlPage } from "../../html-page.ts";
import { dayName, manageBody, place, summary, type FormErrors } from "./manage-markup.ts";

/**
 * The reader's own pages, outside the public API (links in every email):
 *   GET  /subscriptions/{token}  the manage page: every town of the address, and for each active one
 *                                how often (every morning, or once a week on a day), when (5:00 to
 *                                9:00 AM local) and which sections to leave out.
 *   POST /subscriptions/{token}  `city={slug}` with the choices saves them; `subscription={id}` leaves
 *                                one town, `resubscribe={id}` follows it again, `all=1` leaves them all.
 *   GET  /weekly/{token}         the daily footer's "Get this once a week instead": one button; a GET
 *                                never changes anything, so link scanners cannot.
 *   POST /weekly/{token}         that town once a week, on Saturday; a confirmation.
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

/** The form's choices as the contract takes them; each field that does not pass gets its message. */
function readChoices(form: URLSearchParams): { update?: ReaderPreferencesUpdate; errors?: FormErrors["byField"]; values: FormErrors["values"] } {
  const values = {
    frequency: form.get("frequency") ?? undefined,
    weeklyDay: form.get("weeklyDay") ?? undefined,
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

export function managePageRoutes(app: H3, ctx: AppContext): void {
  const managePage = (token: string, notice?: string, errors?: FormErrors) => {
    const view = manageView(ctx, token);
    if (!view) return invalid(ctx);
    return htmlPage(ctx, errors ? 400 : 200, "Your citydaily newsletters", manageBody(view, notice, errors));
  };

  app.get("/subscriptions/:token", (event) => managePage(event.context.params!.token));

  app.post("/subscriptions/:token", async (event) => {
    const token = event.context.params!.token;
    const form = await formBody(event);
    if (form.has("city")) return saveChoices(token, form.get("city")!, form);
    if (form.get("all") === "1") {
      if (!(await unsubscribeByToken(ctx, token, "all", "manage page"))) return invalid(ctx);
      return managePage(token, "You are unsubscribed from every city.");
    }
    if (form.has("resubscribe")) {
      const again = Number(form.get("resubscribe"));
      if (!Number.isInteger(again) || !(await resubscribeCityOfAddress(ctx, token, again))) return managePage(token, "Nothing changed.");
      return managePage(token, "Subscribed again: a welcome email is on its way.");
    }
    const id = Number(form.get("subscription"));
    if (!Number.isInteger(id) || !(await unsubscribeCityOfAddress(ctx, token, id))) return managePage(token, "Nothing changed.");
    return managePage(token, "Unsubscribed.");
  });

  const saveChoices = async (token: string, slug: string, form: URLSearchParams) => {
    const sub = resolveToken(ctx, token);
    if (!sub) return invalid(ctx);
    const { update, errors, values } = readChoices(form);
    if (!update) return managePage(token, undefined, { slug, values, byField: errors! });
    try {
      const city = await updateCityPreferences(ctx, token, slug, update);
      const saved = manageView(ctx, token)?.subscriptions.find((s) => s.slug === city.slug);
      return managePage(token, `Saved. ${saved ? summary(saved) : ""}`);
    } catch {
      return managePage(token, "Nothing changed.");
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
    const manage = `/subscriptions/${encodeURIComponent(token)}`;
    if (sub.status !== "active") return htmlPage(ctx, 200, "You are unsubscribed", `<p>${e(sub.email)} no longer gets the ${e(place(sub))} newsletter.</p><p><a href="${manage}">Manage your cities</a></p>`);
    const city = await switchToWeekly(ctx, token);
    const now = findSubscription(ctx.db, sub.id) ?? sub;
    return htmlPage(ctx, 200, `${sub.name} once a week`, `<p role="status" class="notice">Done: ${e(sub.email)} gets ${e(sub.name)} once a week, on ${dayName(city.preferences.weeklyDay)}s, instead of every morning.</p>
<p>${e(summary(now))}</p>
<p><a href="${manage}">Change the day, the time or the sections</a> · <a href="/${encodeURIComponent(sub.slug)}">Read the ${e(sub.name)} edition on the web</a></p>`);
  });
}
