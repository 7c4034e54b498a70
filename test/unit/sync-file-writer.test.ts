import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SyncFileWriter } from "../../src/publish/site-dir.ts";

const roots: string[] = [];
afterEach(() => { for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true }); });

function dir() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-writer-"));
  roots.push(root);
  fs.mkdirSync(path.join(root, "retired"));
  return root;
}

describe("atomic writes that retire what they replace", () => {
  it("keep the replaced file's inode under the retire directory, and nothing for a new file", () => {
    const root = dir();
    const retired = path.join(root, "retired");
    const page = path.join(root, "archive/salem-oregon/2026-11-22.html");
    // Two writers of one publish (a thread's page patcher and its twin writer) never pick the same name.
    const first = new SyncFileWriter({ atomic: true, retireTo: retired });
    const second = new SyncFileWriter({ atomic: true, retireTo: retired });
    first.write(page, "<p>Nov 22</p>");
    expect(fs.readdirSync(retired)).toEqual([]);
    const before = fs.statSync(page).ino;

    first.write(page, "<p>Nov 22, next: Nov 23</p>");
    second.write(page, "<p>Nov 22, next: Nov 23, fixed</p>");
    expect(fs.readFileSync(page, "utf8")).toBe("<p>Nov 22, next: Nov 23, fixed</p>");
    const kept = fs.readdirSync(retired).map((n) => fs.readFileSync(path.join(retired, n), "utf8")).sort();
    expect(kept).toEqual(["<p>Nov 22, next: Nov 23</p>", "<p>Nov 22</p>"]);
    expect(fs.readdirSync(retired).map((n) => fs.statSync(path.join(retired, n)).ino)).toContain(before);
    // No temporary file is left beside the page.
    expect(fs.readdirSync(path.dirname(page))).toEqual(["2026-11-22.html"]);
  });

  it("without a retire directory, replace as before", () => {
    const root = dir();
    const file = path.join(root, "feed.xml");
    const w = new SyncFileWriter({ atomic: true });
    w.write(file, "one");
    w.write(file, "two");
    expect(fs.readFileSync(file, "utf8")).toBe("two");
    expect(fs.readdirSync(path.join(root, "retired"))).toEqual([]);
  });
});
