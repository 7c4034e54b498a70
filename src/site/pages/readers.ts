import { HIDEABLE_SECTIONS, WEEKDAYS } from "../../contract/preferences.ts";
import { timeZoneName } from "../../core/places/zone-names.ts";
import { fromStored, timeLabel, WEEKDAY_NAMES } from "../../core/readers/preferences.ts";
import type { SubscriptionRow } from "../../store/readers/subscribers.ts";

// The readers' own pages, rendered per request (links in every email, the subscribe form without
// JavaScript, an edition's outbound links): their views, drawn by src/pages/on-request/readers/.
// Views carry what the page shows; the page's words are in the page.

/** "Boise, Idaho". */
export const placeOf = (s: { name: string; state_name: string }) => `${s.name}, ${s.state_name}`;
/** "Tuesday" for "tuesday". */
export const dayName = (day: string) => WEEKDAY_NAMES[WEEKDAYS.indexOf(day as (typeof WEEKDAYS)[number])] ?? day;

/** The manage link's page of an address (its token proves the address). */
export const managePath = (token: string) => `/subscriptions/${encodeURIComponent(token)}`;

/** One line of what a town's reader gets now: "Ely, Nevada: once a week, on Tuesdays at 7:30 AM Pacific Time, without Sunrise and sunset." */
export function summaryOf(s: SubscriptionRow): string {
  const p = fromStored(s);
  const when = p.frequency === "weekly" ? `once a week, on ${dayName(p.weeklyDay)}s` : "every morning";
  const without = p.hiddenSections.length ? `, without ${p.hiddenSections.map((k) => HIDEABLE_SECTIONS[k].replace(/ \(.*\)$/, "")).join(", ")}` : "";
  return `${placeOf(s)}: ${when} at ${timeLabel(s.delivery_minute)} ${timeZoneName(s.timezone)}${without}.`;
}

/** A town as these pages name and link it. */
export interface TownRef {
  slug: string;
  /** "Boise" */
  name: string;
  /** "Boise, Idaho" */
  place: string;
}

export const townRef = (s: { slug: string; name: string; state_name: string }): TownRef => ({ slug: s.slug, name: s.name, place: placeOf(s) });

/** The fields of a town's choices on the manage page. */
export type ChoiceField = "frequency" | "weeklyDay" | "deliveryTime" | "hiddenSections";

/** A town's choices as its form shows them. */
export type ChoiceValues = Partial<Record<Exclude<ChoiceField, "hiddenSections">, string>> & { hiddenSections: string[] };

/** What a post of the manage page did, said by the page it redirects to (`?done=`). */
export type ManageDone = "saved" | "all" | "again" | "unsubscribed" | "unchanged";

export type ManageTown = TownRef & { id: number } & (
  | {
    kind: "active";
    /** What the reader gets now (`summaryOf`). */
    summary: string;
    /** "Mountain Time" */
    timeZone: string;
    /** The form's values: what is stored, or what was sent after a refusal (a value never offered selects nothing). */
    values: ChoiceValues;
    /** Why a field was refused, next to it. */
    errors: Partial<Record<ChoiceField, string>>;
  }
  | {
    kind: "inactive";
    /** The word shown for it: "unsubscribed", "stopped", "bounced"... */
    status: string;
    /** It can be followed again here (a left town of an address not stopped by a bounce or complaint). */
    again: boolean;
  }
);

/** GET /subscriptions/{token}: every town of the address, the active ones with their choices. */
export interface ManagePageView {
  email: string;
  towns: ManageTown[];
  /** Whether any town still gets email (the "every city" button), or none does. */
  anyActive: boolean;
  /** After a post (`?done=`): what it did; with "saved", the saved town's line. */
  done?: ManageDone;
  saved?: string;
  /** A form that did not pass (400): nothing was saved. */
  refused?: boolean;
}

/** GET /weekly/{token}, the daily footer's "Get this once a week instead". */
export type WeeklyPageView = TownRef & { email: string; manage: string } & (
  | { kind: "unsubscribed" }
  | { kind: "offer" }
  /** Already once a week: what it gets. */
  | { kind: "weekly"; summary: string }
  /** Just switched (`?done=weekly`): on which day, and what it gets now. */
  | { kind: "switched"; day: string; summary: string }
);

/** GET and POST /unsubscribe/{token}. */
export type UnsubscribePageView =
  | (TownRef & { kind: "confirm"; email: string; manage: string; cadence: string })
  | (TownRef & { kind: "unsubscribed"; email: string; manage: string })
  /** Just left one town: "manage your other cities" when the address follows another, else "subscribe again". */
  | (TownRef & { kind: "left"; email: string; manage: string; weekly: boolean; others: boolean })
  | { kind: "left-all"; email: string };

/** A manage, weekly or unsubscribe link whose token does not check out (404). */
export interface InvalidLinkView {
  /** Which link to use instead: the manage link or the unsubscribe link of a recent email. */
  link: "manage" | "unsubscribe";
}

/** GET and POST /resubscribe/{token}: the emailed confirmation of a suppressed address. */
export type ResubscribePageView =
  | { kind: "gone" }
  /** `weeklyDay` when it comes back once a week (0 = Sunday). */
  | (TownRef & { kind: "offer"; email: string; weeklyDay?: number })
  | { kind: "refused"; email: string }
  | (TownRef & { kind: "done"; email: string; weeklyDay?: number });

/** What the subscribe form without JavaScript sent, written back into the form shown again. */
export interface SubscribeFormValues {
  email: string;
  slug: string;
  city: string;
  state: string;
  landing_path: string;
  /** The referral code of the share link the reader came by. */
  ref: string;
}

/** POST /subscribe without JavaScript. */
export type SubscribePageView =
  | { kind: "thanks"; message: string; email: string; place: string; slug: string }
  | {
    kind: "form";
    /** What the operation said was wrong, above the form. */
    detail: string;
    values: SubscribeFormValues;
    /** The messages by field: the town's hidden fields are one, "town". */
    errors: { email: string[]; town: string[] };
    /** The town as the reader picked it. */
    place: string;
    /** The page the form was on, when it is a local path. */
    back?: string;
  }
  | { kind: "busy"; retrySeconds: string };

/** An edition's outbound link that is not one of ours (404). */
export interface GoPageView {
  message: string;
}

declare module "./on-request.ts" {
  interface OnRequestViews {
    "readers/manage": ManagePageView;
    "readers/weekly": WeeklyPageView;
    "readers/unsubscribe": UnsubscribePageView;
    "readers/invalid-link": InvalidLinkView;
    "readers/resubscribe": ResubscribePageView;
    "readers/subscribe": SubscribePageView;
    "readers/go": GoPageView;
  }
}
