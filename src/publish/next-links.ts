import fs from "node:fs";
import { editionNavHtml } from "../site/edition-nav.ts";
import type { EditionGainingNext } from "../store/editions.ts";
import { AtomicFileWriter } from "./atomic-files.ts";

/**
 * A new edition gives the one before it in its town a "next" link. That page is not rendered again:
 * the new link is patched into the stored page, whose nav the same `editionNavHtml` drew, so the result
 * is byte for byte what a full rebuild renders, for a file rewrite instead of a render (a thousand of
 * each a morning). A page not as expected (missing, drawn by an older template, already linking
 * somewhere) is left to be rendered again: its id is returned.
 */
export async function patchNextLinks(archiveDir: string, editions: readonly EditionGainingNext[], retireTo?: string): Promise<{ patched: number; toRender: number[] }> {
  // Readers already see the archive: each page is replaced atomically.
  const out = new AtomicFileWriter(archiveDir, { retireTo });
  const toRender: number[] = [];
  for (const e of editions) {
    const rel = `${e.slug}/${e.date}.html`;
    let page: string;
    try {
      page = fs.readFileSync(`${archiveDir}/${rel}`, "utf8");
    } catch {
      toRender.push(e.id);
      continue;
    }
    // The whole paragraph, so a nav that already links forward never matches.
    const was = `<p>${editionNavHtml(e, e.date, { previous: e.previous })}</p>`;
    const at = page.indexOf(was);
    if (at < 0 || page.indexOf(was, at + 1) >= 0) {
      toRender.push(e.id);
      continue;
    }
    const now = `<p>${editionNavHtml(e, e.date, { previous: e.previous, next: e.next })}</p>`;
    await out.write(rel, page.slice(0, at) + now + page.slice(at + was.length));
  }
  return { patched: out.written, toRender };
}
