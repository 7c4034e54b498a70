import { z } from "zod";
import { isWellFormedSlug, MAX_SLUG_LENGTH } from "./slug.ts";

export const Slug = z
  .string()
  .max(MAX_SLUG_LENGTH)
  .refine(isWellFormedSlug, "must be {city}-{state-name}: lowercase words joined by hyphens, ending in a full state name")
  .meta({ id: "Slug", description: "City slug `{city}-{state-name}`, e.g. `st-louis-missouri`; the place finder gives any town's", examples: ["st-louis-missouri"] });

/** A real calendar date written YYYY-MM-DD. */
export const IsoDate = z.iso.date().meta({ description: "Calendar date, YYYY-MM-DD", examples: ["2026-11-22"] });

/**
 * A client's key for retrying a creating request safely (`Idempotency-Key` header over HTTP,
 * `idempotencyKey` argument over MCP): 1 to 255 visible ASCII characters, e.g. a random UUID.
 */
export const IdempotencyKey = z.string()
  .min(1, "must be 1 to 255 visible ASCII characters, e.g. a UUID")
  .max(255, "must be at most 255 characters")
  .regex(/^[\x21-\x7E]+$/, "must be visible ASCII characters only (no spaces), e.g. a UUID")
  .meta({ description: "Makes a retry safe: the same key with the same input answers the first answer for 24 hours (the same order, the same payment link) instead of creating another; with a different input it is refused. A new random UUID per intended request", examples: ["5c7e0a3e-2f4b-4c1a-9a77-0e6d1b7f3c21"] });
/** A town's clock: what "today" and "next Saturday" mean there. */
export const LocalClock = z.object({
  timezone: z.string().meta({ description: "IANA time zone", examples: ["America/Los_Angeles"] }),
  timezoneName: z.string().meta({ description: "The zone as people there say it", examples: ["Pacific Time"] }),
  localDate: IsoDate.meta({ description: "Today's date in the town (YYYY-MM-DD): the date editions, events and \"next Saturday\" are counted from" }),
  weekday: z.string().meta({ description: "Today's day of the week in the town", examples: ["Thursday"] }),
  localTime: z.string().meta({ description: "The time now in the town, 24-hour HH:mm", examples: ["07:15"] }),
});
export type LocalClock = z.infer<typeof LocalClock>;
