import fs from "node:fs";
import { editionNavHtml } from "../site/edition-nav.ts";
import type { EditionGainingNext } from "../store/morning/editions.ts";
import { AtomicFileWriter } from "./atomic-files.ts";
import { editionTwinNav } from "./markdown-pages.ts";

/**
 * A new edition gives the one before it in its town a "next" link, in its page and in its twin. Neither
 * is rendered again: the new link is patched into the stored files, whose navs the same
 * `editionNavHtml` and `editionTwinNav` drew, so the result is byte for byte what a full rebuild writes,
 * for a file rewrite instead of a render and a read of the edition (a thousand of each a morning). The
 * files are patched as bytes: nothing is decoded and encoded again.
 *
 * A file not as expected (missing, drawn by an older template, already linking somewhere) is left to
 * be written again: a page's edition id is in `toRender`; the ids of the twins patched are in
 * `twinsPatched` (the text outputs write the others).
 */
export async function patchNextLinks(archiveDir: string, base: string, editions: readonly EditionGainingNext[], retireTo?: string): Promise<{ /** Pages patched. */ patched: number; toRender: number[]; twinsPatched: Set<number> }> {
  // Readers already see the archive: each file is replaced atomically.
  const out = new AtomicFileWriter(archiveDir, { retireTo });
  let patched = 0;
  const toRender: number[] = [];
  const twinsPatched = new Set<number>();
  for (const e of editions) {
    // The whole paragraph, so a nav that already links forward never matches.
    const page = patchedFile(`${archiveDir}/${e.slug}/${e.date}.html`,
      `<p>${editionNavHtml(e, e.date, { previous: e.previous })}</p>`, `<p>${editionNavHtml(e, e.date, { previous: e.previous, next: e.next })}</p>`);
    if (page) {
      await out.write(`${e.slug}/${e.date}.html`, page);
      patched++;
    } else toRender.push(e.id);
    // The twin's nav is its last line; a twin with no "previous" has none to find, and is written again.
    const twin = e.previous && patchedFile(`${archiveDir}/${e.slug}/${e.date}.md`,
      `\n${editionTwinNav(base, e.slug, { previous: e.previous })}\n`, `\n${editionTwinNav(base, e.slug, { previous: e.previous, next: e.next })}\n`, true);
    if (!twin) continue;
    await out.write(`${e.slug}/${e.date}.md`, twin);
    twinsPatched.add(e.id);
  }
  return { patched, toRender, twinsPatched };
}

/** `file` with its one occurrence of `was` (its end, when `atEnd`) replaced by `now`; undefined when it is not so. */
function patchedFile(file: string, was: string, now: string, atEnd = false): Buffer | undefined {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    return undefined;
  }
  const old = Buffer.from(was);
  const at = atEnd ? bytes.length - old.length : bytes.indexOf(old);
  if (at < 0 || !bytes.subarray(at, at + old.length).equals(old) || (!atEnd && bytes.indexOf(old, at + 1) >= 0)) return undefined;
  return Buffer.concat([bytes.subarray(0, at), Buffer.from(now), bytes.subarray(at + old.length)]);
}
