import { describe, expect, it } from "vitest";
import { NOTE_MAX_CHARS, parseNote } from "../../src/core/edition/note.ts";
import { renderNotePreview } from "../../src/services/commerce/notes.ts";

describe("the operator's note: paragraphs, emphasis and links, nothing else", () => {
  it("keeps paragraphs, *emphasis*, **strong** and http(s) links", () => {
    const html = renderNotePreview("Hello *Ely*, this is **big**.\n\nSee [the library](https://library.example/hours) today.");
    expect(html).toBe('<p>Hello <em>Ely</em>, this is <strong>big</strong>.</p>\n<p>See <a href="https://library.example/hours">the library</a> today.</p>');
  });

  it("turns headings, lists, quotes, code, images, tables and raw HTML into plain words", () => {
    const html = renderNotePreview("# Big news\n\n- one\n- two\n\n> quoted\n\n```\ncode()\n```\n\n![a bridge](https://x.example/a.png)\n\n<script>alert(1)</script> <b>bold</b>");
    expect(html).not.toMatch(/<(h1|ul|li|blockquote|pre|code|img|script|b)\b/);
    expect(html).toContain("<p>Big news</p>");
    expect(html).toContain("<p>one</p>\n<p>two</p>");
    expect(html).toContain("<p>a bridge</p>");
    // Raw HTML is shown as the characters typed, never as markup.
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  });

  it("drops the destination of a javascript: or data: link and keeps its words", () => {
    const html = renderNotePreview("[click](javascript:alert(1)) and [data](data:text/html,hi) and <https://ok.example>");
    expect(html).not.toContain("javascript");
    expect(html).not.toContain("data:text");
    expect(html).toContain("click and data and");
    expect(html).toContain('<a href="https://ok.example/">');
  });

  it("a paragraph that starts like a list or heading stays a paragraph once stored", () => {
    const first = parseNote("1\\. not a list and \\# not a heading");
    expect(first.ok).toBe(true);
    // Parsing the stored form again gives the same form: what is previewed is what is sent.
    const again = parseNote(first.ok ? first.markdown : "");
    expect(again).toEqual(first);
    expect(renderNotePreview(first.ok ? first.markdown : "")).toBe("<p>1. not a list and # not a heading</p>");
  });

  it("refuses an empty note and one past the length limit, saying why", () => {
    expect(parseNote("   \n ")).toMatchObject({ ok: false, issues: [{ path: "markdown", message: expect.stringMatching(/empty/) }] });
    expect(parseNote("x".repeat(NOTE_MAX_CHARS + 1))).toMatchObject({ ok: false, issues: [{ path: "markdown", message: expect.stringMatching(/2001 characters; at most 2000/) }] });
  });

  it("signs the preview with the operator's name, escaped", () => {
    expect(renderNotePreview("Hi.", "Ana *Ruiz*")).toBe("<p>Hi.</p>\n<p>— Ana *Ruiz*, for citydaily</p>");
  });
});
