import { withClickLinks } from "../../src/core/edition/click-links.ts";
import { clickKey } from "../../src/services/readers/clicks.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../../src/core/errors.ts";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { deleteTownNote, setTownNote, townNote } from "../../src/services/commerce/notes.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// 14:00 UTC on Nov 24 is 06:00 in Ely, Nevada (Pacific time): its edition is due.
const NOW = "2026-11-24T14:00:00.000Z";
const ELY = "ely-nevada";
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ NOW, MAIL_SENDER: "off" });
  addSubscriber(server.ctx.db, ELY, "reader@example.org");
});
afterAll(async () => server?.stop());

function problem(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error("no problem raised");
}

describe("operator notes", () => {
  it("refuses bad input with per-field issues and stores nothing", () => {
    const err = problem(() => setTownNote(server.ctx, ELY, { date: "2026-11-23", markdown: "", authorName: "", by: "op@example.org" }));
    expect(err.code).toBe("validation_error");
    expect(err.issues?.map((i) => i.path).sort()).toEqual(["authorName", "date", "markdown"]);
    expect(err.issues?.find((i) => i.path === "date")?.message).toMatch(/has gone out; a note can be written for 2026-11-24 or later/);
    expect(townNote(server.ctx, ELY, "2026-11-23")).toBeNull();
    expect(problem(() => setTownNote(server.ctx, "nowhere-nevada", { date: "2026-11-24", markdown: "Hi", authorName: "A", by: "x" })).code).toBe("city_not_found");
  });

  it("a saved note is replaced by the next save, read back, and deleted", () => {
    setTownNote(server.ctx, ELY, { date: "2026-11-25", markdown: "First draft", authorName: "Dana", by: "op@example.org" });
    const saved = setTownNote(server.ctx, ELY, { date: "2026-11-25", markdown: "Second *draft*", authorName: "Dana Ruiz", by: "op@example.org" });
    expect(saved).toMatchObject({ slug: ELY, date: "2026-11-25", markdown: "Second *draft*", authorName: "Dana Ruiz", updatedBy: "op@example.org" });
    expect(townNote(server.ctx, ELY, "2026-11-25")?.html).toBe("<p>Second <em>draft</em></p>\n<p>— Dana Ruiz, for citydaily</p>");
    expect(deleteTownNote(server.ctx, ELY, "2026-11-25")).toBe(true);
    expect(deleteTownNote(server.ctx, ELY, "2026-11-25")).toBe(false);
    expect(townNote(server.ctx, ELY, "2026-11-25")).toBeNull();
  });

  it("the morning's edition carries the day's note under the greeting, signed, exactly as previewed", async () => {
    const note = setTownNote(server.ctx, ELY, {
      date: "2026-11-24", markdown: "The **library** opens late today; see [its hours](https://library.example/hours).\n\n<img src=x onerror=alert(1)>",
      authorName: "Dana Ruiz", by: "op@example.org",
    });
    const s = await runMorning(server.ctx);
    expect(s.composed).toBe(1);
    const res = await server.get(`/api/archive/${ELY}/2026-11-24`);
    const body = (await res.json()) as { html: string; markdown: string };
    // As previewed, its outbound link through the counting redirect as every edition link is.
    const asSent = withClickLinks(note.html, server.url, clickKey(server.ctx), ELY, "2026-11-24");
    expect(asSent).toContain(`${server.url}/go/${ELY}/2026-11-24/`);
    expect(body.html).toContain(asSent);
    expect(body.html).not.toContain("<img");
    const greeting = body.html.indexOf("Good morning");
    const at = body.html.indexOf(asSent);
    expect(greeting).toBeGreaterThan(-1);
    expect(at).toBeGreaterThan(greeting);
    expect(at).toBeLessThan(body.html.indexOf("<h2>"));
  });
});
