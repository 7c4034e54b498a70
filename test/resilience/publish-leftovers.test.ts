import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { currentGeneration, siteDirs } from "../../src/publish/site-dir.ts";
import { buildSite, publishEditions } from "../../src/services/site/publish.ts";
import { addEdition, addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

/**
 * A publish killed mid-way leaves `.tmp` files (interrupted atomic writes) in the archive and the
 * generation, and a generation directory that was never swapped in; a failed one can leave its
 * generation too. The next publish removes them, and the live site is untouched by the cleaning.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ MAIL_SENDER: "off" });
  addSubscriber(server.ctx.db, "boise-idaho", "leftovers@example.org");
  addEdition(server.ctx.db, "boise-idaho", "2026-11-20", "Boise, November 20");
  await buildSite(server.ctx);
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

describe("what a killed or failed publish leaves behind", () => {
  it("is removed by the next publish", async () => {
    const dirs = siteDirs(server.dataDir);
    const live = currentGeneration(dirs)!;
    // As a publish killed mid-way leaves them: its marker, temporary files, an unswapped generation.
    fs.writeFileSync(path.join(dirs.root, ".publishing"), "999999");
    const archiveTmp = path.join(dirs.archive, "boise-idaho", "2026-11-20.html.999999.3.tmp");
    fs.mkdirSync(path.dirname(archiveTmp), { recursive: true });
    fs.writeFileSync(archiveTmp, "<html>half");
    const liveTmp = path.join(live, "feed.xml.999999.7.tmp");
    fs.writeFileSync(liveTmp, "<rss");
    const abandoned = path.join(dirs.generations, `${(Date.now() + 1000).toString(36).padStart(9, "0")}-999999-abcdef`);
    fs.mkdirSync(path.join(abandoned, "states"), { recursive: true });
    fs.writeFileSync(path.join(abandoned, "index.html"), "half a site");

    const id = addEdition(server.ctx.db, "boise-idaho", "2026-11-21", "Boise, November 21")!;
    await publishEditions(server.ctx, [id]);

    expect(fs.existsSync(archiveTmp)).toBe(false);
    expect(fs.existsSync(liveTmp)).toBe(false);
    expect(fs.existsSync(abandoned)).toBe(false);
    expect(fs.existsSync(path.join(dirs.root, ".publishing"))).toBe(false);
    // The site itself is whole: both editions are served.
    expect((await server.get("/boise-idaho/2026-11-20")).status).toBe(200);
    expect((await server.get("/boise-idaho/2026-11-21")).status).toBe(200);
  });
});
