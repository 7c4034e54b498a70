import { IsoDate } from "../../contract/common.ts";
import { addDays } from "../../lib/time.ts";
import { AppError } from "../../core/errors.ts";
import { noteSection, parseAuthorName, parseNote, type NoteIssue } from "../../core/edition/note.ts";
import { renderEditionHtml } from "../../core/edition/render-html.ts";
import { localDate } from "../../lib/time.ts";
import { deleteNote, findNote, notesFrom, upsertNote, type NoteRow } from "../../store/commerce/notes.ts";
import { requireTown } from "../places/cities.ts";
import type { AppContext } from "../platform/context.ts";

/**
 * Operator notes: what a town's operator writes for one morning's edition, shown under the greeting
 * and signed. The operator desk (its pages and endpoints) calls these; the morning reads `noteFor`.
 */

export interface TownNote {
  slug: string;
  date: string;
  /** The canonical markdown the edition carries (src/core/edition/note.ts), not necessarily the text typed. */
  markdown: string;
  /** The note's HTML exactly as the edition shows it, signature included. */
  html: string;
  authorName: string;
  updatedBy: string;
  updatedAt: string;
}

/** How far ahead a note may be written. */
export const NOTE_DAYS_AHEAD = 366;

function view(slug: string, row: NoteRow): TownNote {
  return {
    slug, date: row.date, markdown: row.markdown, html: renderNotePreview(row.markdown, row.author_name),
    authorName: row.author_name, updatedBy: row.updated_by, updatedAt: row.updated_at,
  };
}

function invalid(issues: NoteIssue[]): never {
  throw new AppError("validation_error", issues.map((i) => i.message).join("; "), { issues });
}

/**
 * The HTML the edition will carry for this note: the same renderer and sanitiser as the edition, so
 * a preview never differs from what readers get. With `authorName`, the signature line too.
 */
export function renderNotePreview(markdown: string, authorName?: string): string {
  const parsed = parseNote(markdown);
  if (!parsed.ok) return "";
  const lines = authorName ? noteSection({ markdown: parsed.markdown, authorName }) : [parsed.markdown];
  return renderEditionHtml(lines.join("\n")).trim();
}

/**
 * Saves (or replaces) the note of `slug` for `date`. Nothing is stored unless all of it is valid. An
 * operator's note names the lease it is written under (`leaseId`, and `lastDate`, the lease's last
 * day when it is cancelled): the morning prints it only while that lease runs, and a date past
 * `lastDate` is refused. Without `leaseId` it is staff's.
 */
export function setTownNote(ctx: AppContext, slug: string, input: { date: string; markdown: string; authorName: string; by: string; leaseId?: string; lastDate?: string | null }): TownNote {
  const place = requireTown(ctx, slug);
  const issues: NoteIssue[] = [];
  const today = localDate(ctx.config.now(), place.timezone);
  if (!IsoDate.safeParse(input.date).success) {
    issues.push({ path: "date", message: "Give the edition's date as YYYY-MM-DD" });
  } else if (input.date < today) {
    issues.push({ path: "date", message: `The edition of ${input.date} has gone out; a note can be written for ${today} or later` });
  } else if (input.date > addDays(today, NOTE_DAYS_AHEAD)) {
    issues.push({ path: "date", message: `A note can be written at most a year ahead (until ${addDays(today, NOTE_DAYS_AHEAD)})` });
  } else if (input.lastDate && input.date > input.lastDate) {
    issues.push({ path: "date", message: `Your lease ends on ${input.lastDate}; a note can be written for an edition until then` });
  }
  const note = parseNote(input.markdown);
  if (!note.ok) issues.push(...note.issues);
  const author = parseAuthorName(input.authorName);
  if (!author.ok) issues.push(...author.issues);
  if (issues.length > 0 || !note.ok || !author.ok) invalid(issues);
  upsertNote(ctx.db, { placeGeoid: place.geoid, date: input.date, markdown: note.markdown, authorName: author.name, by: input.by.slice(0, 200), leaseId: input.leaseId ?? null, now: ctx.config.now().toISOString() });
  return view(place.slug, findNote(ctx.db, place.geoid, input.date)!);
}

/** The note of `slug` for `date`, or null. */
export function townNote(ctx: AppContext, slug: string, date: string): TownNote | null {
  const place = requireTown(ctx, slug);
  const row = findNote(ctx.db, place.geoid, date);
  return row ? view(place.slug, row) : null;
}

/** Deletes the note of `slug` for `date`; false when there was none. */
export function deleteTownNote(ctx: AppContext, slug: string, date: string): boolean {
  const place = requireTown(ctx, slug);
  return deleteNote(ctx.db, place.geoid, date);
}

/** The town's notes from today (its local date) on: what the desk shows as scheduled. */
export function upcomingTownNotes(ctx: AppContext, slug: string): TownNote[] {
  const place = requireTown(ctx, slug);
  return notesFrom(ctx.db, place.geoid, localDate(ctx.config.now(), place.timezone)).map((r) => view(place.slug, r));
}
