import type { ReaderPreferencesUpdate } from "../../contract/preferences.ts";
import { fromStored } from "../../core/readers/preferences.ts";
import { timeZoneName } from "../../core/places/zone-names.ts";
import {
  dayName, managePath, summaryOf, townRef, type ChoiceField, type ManageDone, type ManagePageView, type ManageTown, type WeeklyPageView,
} from "../../site/pages/readers.ts";
import type { SubscriptionRow } from "../../store/readers/subscribers.ts";
import type { AppContext } from "../platform/context.ts";
import { switchToWeekly, updateCityPreferences } from "./preferences.ts";
import { manageView, resolveToken, resubscribeCityOfAddress, unsubscribeByToken, unsubscribeCityOfAddress, type ManageView } from "./unsubscribe.ts";

// The manage page (/subscriptions/{token}) and the footer's once-a-week page (/weekly/{token}):
// what each shows and what their buttons do, one function per answer of api/routes/readers/manage-page.ts.

/** What the reader sent for a town that did not pass, and why, by field. */
export interface RefusedChoices {
  slug: string;
  values: Partial<Record<Exclude<ChoiceField, "hiddenSections">, string>> & { hiddenSections?: string[] };
  errors: Partial<Record<ChoiceField, string>>;
}

function townOf(view: ManageView, s: SubscriptionRow, refused: RefusedChoices | undefined): ManageTown {
  const ref = { ...townRef(s), id: s.id };
  if (s.status === "active" && !view.suppressed) {
    const stored = fromStored(s);
    const mine = refused?.slug === s.slug ? refused : undefined;
    // After a refusal the form shows what was sent (a value the page never offers selects nothing).
    const values = { ...stored, ...mine?.values, hiddenSections: mine?.values.hiddenSections ?? stored.hiddenSections };
    return { ...ref, kind: "active", summary: summaryOf(s), timeZone: timeZoneName(s.timezone), values, errors: mine?.errors ?? {} };
  }
  const again = s.status === "unsubscribed" && view.resubscribable;
  return { ...ref, kind: "inactive", again, status: again ? "unsubscribed" : s.status === "active" ? "stopped" : s.status };
}

function pageOf(view: ManageView, extra: Pick<ManagePageView, "done" | "saved" | "refused">, refused?: RefusedChoices): ManagePageView {
  return {
    email: view.email,
    towns: view.subscriptions.map((s) => townOf(view, s, refused)),
    anyActive: !view.suppressed && view.subscriptions.some((s) => s.status === "active"),
    ...extra,
  };
}

/** GET /subscriptions/{token}, after a post what it did (`done`); undefined for a link that is not valid. */
export function managePage(ctx: AppContext, token: string, done?: ManageDone, savedSlug?: string | null): ManagePageView | undefined {
  const view = manageView(ctx, token);
  if (!view) return undefined;
  // "Saved." goes on with what the town's reader gets now.
  const saved = done === "saved" ? view.subscriptions.find((s) => s.slug === savedSlug && s.status === "active") : undefined;
  return pageOf(view, { done, ...(saved ? { saved: summaryOf(saved) } : {}) });
}

/** What the manage page's forms post: a town's choices (or the reasons they did not pass), leaving or following again. */
export type ManageAction =
  | { kind: "choices"; slug: string; update: ReaderPreferencesUpdate }
  | { kind: "refused"; choices: RefusedChoices }
  | { kind: "all" }
  | { kind: "resubscribe"; id: number }
  | { kind: "unsubscribe"; id: number };

export type ManageOutcome =
  | { kind: "invalid" }
  /** Then the page's own GET says it (303). */
  | { kind: "done"; done: ManageDone; slug?: string }
  /** The page itself, the refused fields marked (400). */
  | { kind: "refused"; page: ManagePageView };

/** POST /subscriptions/{token}. */
export async function actOnManagePage(ctx: AppContext, token: string, action: ManageAction): Promise<ManageOutcome> {
  if (!resolveToken(ctx, token)) return { kind: "invalid" };
  switch (action.kind) {
    case "refused": {
      const view = manageView(ctx, token);
      return view ? { kind: "refused", page: pageOf(view, { refused: true }, action.choices) } : { kind: "invalid" };
    }
    case "choices":
      try {
        const city = await updateCityPreferences(ctx, token, action.slug, action.update);
        return { kind: "done", done: "saved", slug: city.slug };
      } catch {
        return { kind: "done", done: "unchanged" };
      }
    case "all":
      return (await unsubscribeByToken(ctx, token, "all", "manage page")) ? { kind: "done", done: "all" } : { kind: "invalid" };
    case "resubscribe":
      return { kind: "done", done: Number.isInteger(action.id) && (await resubscribeCityOfAddress(ctx, token, action.id)) ? "again" : "unchanged" };
    case "unsubscribe":
      return { kind: "done", done: Number.isInteger(action.id) && (await unsubscribeCityOfAddress(ctx, token, action.id)) ? "unsubscribed" : "unchanged" };
  }
}

/** GET /weekly/{token} (`switched` after its button, `?done=weekly`); undefined for a link that is not valid. */
export function weeklyPage(ctx: AppContext, token: string, switched: boolean): WeeklyPageView | undefined {
  const sub = resolveToken(ctx, token);
  if (!sub) return undefined;
  const base = { ...townRef(sub), email: sub.email, manage: managePath(token) };
  if (sub.status !== "active") return { ...base, kind: "unsubscribed" };
  if (sub.frequency !== "weekly") return { ...base, kind: "offer" };
  // After the button: the confirmation, from what is stored now.
  if (switched) return { ...base, kind: "switched", day: dayName(fromStored(sub).weeklyDay), summary: summaryOf(sub) };
  return { ...base, kind: "weekly", summary: summaryOf(sub) };
}

/** POST /weekly/{token}: the token's town once a week; an unsubscribed town changes nothing. */
export async function weeklyButton(ctx: AppContext, token: string): Promise<"invalid" | "inactive" | "switched"> {
  const sub = resolveToken(ctx, token);
  if (!sub) return "invalid";
  if (sub.status !== "active") return "inactive";
  await switchToWeekly(ctx, token);
  return "switched";
}
