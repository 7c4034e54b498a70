import { z } from "zod";
import { isWellFormedSlug, MAX_SLUG_LENGTH } from "../core/slug.ts";

export const Slug = z
  .string()
  .max(MAX_SLUG_LENGTH)
  .refine(isWellFormedSlug, "must be {city}-{state-name}: lowercase words joined by hyphens, ending in a full state name")
  .meta({ id: "Slug", description: "City slug `{city}-{state-name}`, e.g. `st-louis-missouri`; the place finder gives any town's", examples: ["st-louis-missouri"] });

/** A real calendar date written YYYY-MM-DD. */
export const IsoDate = z.iso.date().meta({ description: "Calendar date, YYYY-MM-DD", examples: ["2026-11-22"] });

/** A town's clock: what "today" and "next Saturday" mean there. */
export const LocalClock = z.object({
  timezone: z.string().meta({ description: "IANA time zone", examples: ["America/Los_Angeles"] }),
  timezoneName: z.string().meta({ description: "The zone as people there say it", examples: ["Pacific Time"] }),
  localDate: IsoDate.meta({ description: "Today's date in the town (YYYY-MM-DD): the date editions, events and \"next Saturday\" are counted from" }),
  weekday: z.string().meta({ description: "Today's day of the week in the town", examples: ["Thursday"] }),
  localTime: z.string().meta({ description: "The time now in the town, 24-hour HH:mm", examples: ["07:15"] }),
});
export type LocalClock = z.infer<typeof LocalClock>;
