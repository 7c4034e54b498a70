import { z } from "zod";
import { Slug } from "./common.ts";

// What a reader chooses for each town they get: how often, at what time, and which sections they
// skip. Stored on the subscription (src/store/migrations/034-reader-preferences.sql); the manage page,
// the API and the sender all read these names.

/**
 * The sections a reader may leave out of their email, with the words the manage page shows. Only
 * what is the same every day or nice to have: warnings, hazards, the weather, the calendar and the
 * directory (paid placements) are always there.
 */
export const HIDEABLE_SECTIONS = {
  "holidays": "Holidays and observances",
  "did-you-know": "Did you know? (a fact about the town)",
  "sun": "Sunrise and sunset",
  "air-quality": "Air quality on good and moderate days (unhealthy air is always shown)",
  "archive": "From the archive (a year ago today, records)",
  "headlines": "Local headlines (the day's top story stays when it leads)",
} as const;
export type SectionKey = keyof typeof HIDEABLE_SECTIONS;
export const SECTION_KEYS = Object.keys(HIDEABLE_SECTIONS) as SectionKey[];

export const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** Delivery times a reader may pick: 5:00 to 9:00 AM in the town's time zone, every half hour. */
export const DELIVERY_MINUTES = { first: 300, last: 540, step: 30, default: 360 } as const;
export const DELIVERY_TIMES: string[] = Array.from({ length: (DELIVERY_MINUTES.last - DELIVERY_MINUTES.first) / DELIVERY_MINUTES.step + 1 },
  (_, i) => minuteToTime(DELIVERY_MINUTES.first + i * DELIVERY_MINUTES.step));

/** 390 -> "06:30". */
export function minuteToTime(minute: number): string {
  return `${String(Math.floor(minute / 60)).padStart(2, "0")}:${String(minute % 60).padStart(2, "0")}`;
}

export const Frequency = z.enum(["daily", "weekly"]).meta({ id: "Frequency", description: "`daily`: every morning's edition. `weekly`: one email a week on `weeklyDay`, the week in the town, instead of the daily ones" });
export const Weekday = z.enum(WEEKDAYS).meta({ id: "Weekday", description: "A day of the week in the town's own time zone" });
export const DeliveryTime = z.enum(DELIVERY_TIMES as [string, ...string[]]).meta({
  id: "DeliveryTime",
  description: "When the email is sent, in the town's local time (24-hour `HH:MM`): 05:00 to 09:00 in steps of 30 minutes. Never before the town's edition is published",
  examples: ["06:00", "07:30"],
});
export const SectionKey = z.enum(SECTION_KEYS as [SectionKey, ...SectionKey[]]).meta({
  id: "SectionKey",
  description: `A section a reader may leave out of their email: ${SECTION_KEYS.map((k) => `\`${k}\` (${HIDEABLE_SECTIONS[k]})`).join(", ")}`,
});

export const ReaderPreferences = z.object({
  frequency: Frequency,
  weeklyDay: Weekday.meta({ description: "The weekly email's day (used when `frequency` is `weekly`)" }),
  deliveryTime: DeliveryTime,
  hiddenSections: z.array(SectionKey).max(SECTION_KEYS.length).meta({ description: "Sections left out of this reader's emails; empty: the whole edition" }),
}).meta({ id: "ReaderPreferences" });
export type ReaderPreferences = z.output<typeof ReaderPreferences>;

export const DEFAULT_PREFERENCES: ReaderPreferences = { frequency: "daily", weeklyDay: "saturday", deliveryTime: "06:00", hiddenSections: [] };

/** A change: any of the fields, at least one; those left out stay as they are. */
export const ReaderPreferencesUpdate = ReaderPreferences.partial().strict()
  .refine((u) => Object.keys(u).length > 0, "give at least one of frequency, weeklyDay, deliveryTime, hiddenSections")
  .meta({ id: "ReaderPreferencesUpdate" });
export type ReaderPreferencesUpdate = z.output<typeof ReaderPreferencesUpdate>;

export const ManageToken = z.string().regex(/^[1-9]\d{0,15}\.[\w-]{32}$/, "must be the token of a manage link (the part after /subscriptions/ in an email's \"Manage your cities\" link)")
  .meta({ description: "The token of the \"Manage your cities\" link in every email (`/subscriptions/{token}`)", examples: ["42.k3JdQ0w1c9hP2vX7yZbN4mRtUoAeLsGi"] });

export const ReaderSubscriptionsParams = z.object({ token: ManageToken });
export const ReaderCityParams = z.object({ token: ManageToken, slug: Slug });

export const ReaderCity = z.object({
  slug: z.string(),
  name: z.string(),
  state: z.string(),
  status: z.enum(["active", "unsubscribed", "bounced", "complained"]).meta({ description: "Only `active` subscriptions get email" }),
  timezone: z.string().meta({ description: "The town's IANA time zone: `deliveryTime` and `weeklyDay` are in it", examples: ["America/Los_Angeles"] }),
  preferences: ReaderPreferences,
}).meta({ id: "ReaderCity" });
export type ReaderCity = z.output<typeof ReaderCity>;

export const ReaderSubscriptions = z.object({
  email: z.string(),
  suppressed: z.boolean().meta({ description: "True when the address gets no citydaily email at all (it unsubscribed from everything, bounced or complained)" }),
  cities: z.array(ReaderCity),
  sections: z.array(z.object({ key: SectionKey, label: z.string() })).meta({ description: "The sections that may be hidden, with their names" }),
}).meta({ id: "ReaderSubscriptions" });
export type ReaderSubscriptions = z.output<typeof ReaderSubscriptions>;
