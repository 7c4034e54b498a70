import { IsoDate } from "../../contract/common.ts";
import type { ArchiveResponse } from "../../contract/resources.ts";
import { withoutWeatherEmoji } from "../../core/edition/web-edition.ts";
import { AppError } from "../../core/errors.ts";
import { cityArchive, findEdition } from "../../store/morning/editions.ts";
import { requireNewsletterTown } from "../places/cities.ts";
import type { AppContext } from "../platform/context.ts";
import { reply, type Reply } from "../platform/reply.ts";

export interface Edition extends ArchiveResponse {
  markdown: string;
}

/** A published edition; before that morning's publication there is none (no fallback to another day). */
export function getEdition(ctx: AppContext, slug: string | undefined, date: string): Edition {
  const place = requireNewsletterTown(ctx, slug);
  const row = findEdition(ctx.db, place.geoid, date);
  if (!row) throw new AppError("edition_not_found", `${place.name}, ${place.state_name} has no edition for ${date}.`);
  // Editions stored before conditions were named in words carry weather emoji: they go, as everywhere readers read.
  return { html: withoutWeatherEmoji(row.html), subject: row.subject, date: row.date, markdown: withoutWeatherEmoji(row.markdown) };
}

/**
 * One edition as the archive serves it (JSON, with its markdown twin). Errors come in the order a
 * reader fixes them: the city first, then the date's form, then whether that day was published.
 */
export function readEdition(ctx: AppContext, slug: string, date: string | undefined): Reply<ArchiveResponse> {
  const place = requireNewsletterTown(ctx, slug);
  // Over MCP the date may be left out: the latest edition.
  if (date === undefined) {
    const latest = cityArchive(ctx.db, place.geoid, 1)[0];
    if (!latest) throw new AppError("edition_not_found", `${place.name}, ${place.state_name} has no edition yet: its first is published the morning after its first subscriber.`);
    date = latest.date;
  }
  if (!IsoDate.safeParse(date).success) {
    throw new AppError("validation_error", `"${date.slice(0, 40)}" is not a calendar date in YYYY-MM-DD form.`, {
      issues: [{ path: "date", message: "must be a real calendar date YYYY-MM-DD, optionally followed by .md" }],
    });
  }
  const { markdown, ...edition } = getEdition(ctx, slug, date);
  return reply(edition, { markdown });
}
