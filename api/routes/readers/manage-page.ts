import type { H3, H3Event } from "h3";
import { ReaderPreferencesUpdate } from "../../../src/contract/preferences.ts";
import { toFieldIssues } from "../../../src/core/errors.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { actOnManagePage, managePage, weeklyButton, weeklyPage, type ManageAction, type RefusedChoices } from "../../../src/services/readers/manage-page.ts";
import type { ChoiceField, ManageDone } from "../../../src/site/pages/readers.ts";
import { readBodyText } from "../../http/body.ts";
import { viewPage } from "../../http/html-page.ts";

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
 * The pages: src/pages/on-request/readers/ (manage, weekly, invalid-link).
 */

const invalid = (ctx: AppContext) => viewPage(ctx, 404, "readers/invalid-link", { link: "manage" });

/** The posted form; an oversized one counts as empty (these pages answer in HTML, not problem+json). */
export async function formBody(event: H3Event): Promise<URLSearchParams> {
  return new URLSearchParams(await readBodyText(event).catch(() => ""));
}

const FIELD_WORDS: Record<ChoiceField, string> = {
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
function readChoices(slug: string, form: URLSearchParams): ManageAction {
  const frequency = form.get("frequency") ?? undefined;
  const values = {
    frequency,
    weeklyDay: frequency === "daily" ? undefined : form.get("weeklyDay") ?? undefined,
    deliveryTime: form.get("deliveryTime") ?? undefined,
    hiddenSections: form.getAll("hiddenSections[]"),
  };
  const parsed = ReaderPreferencesUpdate.safeParse(values);
  if (parsed.success) return { kind: "choices", slug, update: parsed.data };
  const errors: RefusedChoices["errors"] = {};
  for (const issue of toFieldIssues(parsed.error.issues)) {
    const field = (issue.path.split(".")[0] || "frequency") as ChoiceField;
    errors[field] ??= FIELD_WORDS[field] ?? issue.message;
  }
  return { kind: "refused", choices: { slug, values, errors } };
}

/** What a manage form posted. */
function readAction(form: URLSearchParams): ManageAction {
  if (form.has("city")) return readChoices(form.get("city")!, form);
  if (form.get("all") === "1") return { kind: "all" };
  if (form.has("resubscribe")) return { kind: "resubscribe", id: Number(form.get("resubscribe")) };
  return { kind: "unsubscribe", id: Number(form.get("subscription")) };
}

/** What a post did, said by the page it redirects to (`?done=`): fixed words (the page's), never text from the address. */
const DONE: readonly string[] = ["saved", "all", "again", "unsubscribed", "unchanged"] satisfies ManageDone[];

/** After a post that did something (or nothing), the page is a GET of its own (303): a reload shows it again and posts nothing. */
function seeOwnPage(path: string, token: string, done?: string, slug?: string): Response {
  const query = new URLSearchParams([...(done ? [["done", done]] : []), ...(slug ? [["city", slug]] : [])]).toString();
  const location = `/${path}/${encodeURIComponent(token)}${query ? `?${query}` : ""}`;
  // The address carries the token: no Referer, no cache, as for the page itself.
  return new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" } });
}

export function managePageRoutes(app: H3, ctx: AppContext): void {
  app.get("/subscriptions/:token", (event) => {
    const query = event.url.searchParams;
    const done = query.get("done");
    const view = managePage(ctx, event.context.params!.token, done !== null && DONE.includes(done) ? (done as ManageDone) : undefined, query.get("city"));
    return view ? viewPage(ctx, 200, "readers/manage", view) : invalid(ctx);
  });

  app.post("/subscriptions/:token", async (event) => {
    const token = event.context.params!.token;
    const outcome = await actOnManagePage(ctx, token, readAction(await formBody(event)));
    if (outcome.kind === "invalid") return invalid(ctx);
    // A form that does not pass is the answer itself (400), with what was sent and why, next to each field.
    if (outcome.kind === "refused") return viewPage(ctx, 400, "readers/manage", outcome.page);
    return seeOwnPage("subscriptions", token, outcome.done, outcome.slug);
  });

  app.get("/weekly/:token", (event) => {
    const view = weeklyPage(ctx, event.context.params!.token, event.url.searchParams.get("done") === "weekly");
    return view ? viewPage(ctx, 200, "readers/weekly", view) : invalid(ctx);
  });

  app.post("/weekly/:token", async (event) => {
    const token = event.context.params!.token;
    const done = await weeklyButton(ctx, token);
    if (done === "invalid") return invalid(ctx);
    // An unsubscribed town changes nothing: its GET says so.
    return seeOwnPage("weekly", token, done === "switched" ? "weekly" : undefined);
  });
}
