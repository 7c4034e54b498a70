import { renderSimpleHtml } from "./simple-html.ts";
import type { DB } from "../../src/store/db.ts";
import { insertEdition } from "../../src/store/morning/editions.ts";

/** The GEOID of a place by slug (throws if unknown, so a typo fails loudly). */
export function geoidOf(db: DB, slug: string): string {
  const geoid = db.prepare("SELECT geoid FROM places WHERE slug = ?").pluck().get(slug) as string | undefined;
  if (!geoid) throw new Error(`no place with slug ${slug}`);
  return geoid;
}

/** Inserts a subscriber row directly (the subscribe endpoint has its own tests). */
export function addSubscriber(db: DB, slug: string, email: string, status = "active"): void {
  const now = new Date().toISOString();
  db.prepare(`INSERT INTO subscribers (email, place_geoid, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`)
    .run(email, geoidOf(db, slug), status, now, now);
}

/** Stores an edition as the pipeline would (same store function, same transaction rules). */
export function addEdition(db: DB, slug: string, date: string, subject: string, body = `Good morning. ${subject}.`): number | undefined {
  const markdown = `# ${subject}\n\n${body}\n`;
  return insertEdition(db, {
    placeGeoid: geoidOf(db, slug), date, subject, markdown, html: renderSimpleHtml(subject, body),
    publishedAt: `${date}T11:00:00.000Z`,
  });
}
