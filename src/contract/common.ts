import { z } from "zod";
import { isWellFormedSlug, MAX_SLUG_LENGTH } from "../core/slug.ts";

export const Slug = z
  .string()
  .max(MAX_SLUG_LENGTH)
  .refine(isWellFormedSlug, "must be {city}-{state-name}: lowercase words joined by hyphens, ending in a full state name")
  .meta({ id: "Slug", description: "City slug `{city}-{state-name}`, e.g. `st-louis-missouri`; the place finder gives any town's (find_place, `/api/places?q=`)", examples: ["st-louis-missouri"] });

/** A real calendar date written YYYY-MM-DD. */
export const IsoDate = z.iso.date().meta({ description: "Calendar date, YYYY-MM-DD", examples: ["2026-11-22"] });
