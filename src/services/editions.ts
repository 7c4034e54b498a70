import type { ArchiveResponse } from "../contract/resources.ts";
import { AppError } from "../core/errors.ts";
import { findEdition } from "../store/editions.ts";
import { requireCity } from "./cities.ts";
import type { AppContext } from "./context.ts";

export interface Edition extends ArchiveResponse {
  markdown: string;
}

/** A published edition; before that morning's publication there is none (no fallback to another day). */
export function getEdition(ctx: AppContext, slug: string | undefined, date: string): Edition {
  const place = requireCity(ctx, slug);
  const row = findEdition(ctx.db, place.geoid, date);
  if (!row) throw new AppError("edition_not_found", `${place.name}, ${place.state_name} has no edition for ${date}.`);
  return { html: row.html, subject: row.subject, date: row.date, markdown: row.markdown };
}
