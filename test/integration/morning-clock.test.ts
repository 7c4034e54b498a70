import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markPaidAndPublish } from "../../src/services/commerce/listings.ts";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { findOrder } from "../../src/store/commerce/orders.ts";
import { EVENT, PINNED_NOW } from "../helpers/commerce.ts";
import { addSubscriber, geoidOf } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";

// The morning on one clock: a run given its `now` writes that time into every row it writes, whatever
// the server's own clock says (here pinned to PINNED_NOW, ten days earlier). A Wednesday, 7:30 in Boise.
const RUN_NOW = "2026-12-02T14:30:00.000Z";

let sink: SmtpSink;
let server: TestServer;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  server = await startTestServer({ SMTP_URL: sink.url, MAIL_SENDER: "off", NOW: PINNED_NOW, POSTAL_ADDRESS: "citydaily, 100 Main St, Springfield, IL 62701" });
  addSubscriber(server.ctx.db, "boise-idaho", "daily@example.org");
  // A weekly reader whose day is Wednesday: the run composes and queues Boise's weekly.
  server.ctx.db.prepare("INSERT INTO subscribers (email, place_geoid, status, frequency, weekly_day, created_at, updated_at) VALUES (?, ?, 'active', 'weekly', 3, ?, ?)")
    .run("weekly@example.org", geoidOf(server.ctx.db, "boise-idaho"), PINNED_NOW, PINNED_NOW);
});
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
});

describe("the morning's clock", () => {
  it("stamps every row it writes with the run's now: editions, ledger, digests, weeklies, listings ended, the run record", async () => {
    // A listing published on the server's day, whose run ended (the day after Nov 28) before the run's now.
    const listing = await (await server.post("/api/listing-checkout", EVENT)).json();
    const db = server.ctx.db;
    // Paid as the payment callback marks it (the hosted page is the commerce tests' to walk).
    expect(markPaidAndPublish(server.ctx, findOrder(db, listing.orderId)!, { feeCents: 0, paymentId: "pay_clock" })).toBe(true);
    const boise = geoidOf(db, "boise-idaho");

    const summary = await runMorning(server.ctx, { now: new Date(RUN_NOW) });
    expect(summary).toMatchObject({ at: RUN_NOW, composed: 1, published: 1, digestsQueued: 1, weekliesQueued: 1 });

    const edition = db.prepare("SELECT id, date, published_at FROM editions WHERE place_geoid = ?").get(boise) as { id: number; date: string; published_at: string };
    expect(edition).toMatchObject({ date: "2026-12-02", published_at: RUN_NOW });
    // The publishing ledger: published and queued at the run's now.
    expect(db.prepare("SELECT site_published_at, digests_queued_at FROM edition_publish WHERE edition_id = ?").get(edition.id)).toEqual({ site_published_at: RUN_NOW, digests_queued_at: RUN_NOW });
    // The outbox: the digest, the weekly and the buyer's "listing ended" mail, each created at the run's now.
    const outbox = db.prepare("SELECT kind, template, weekly_id, created_at FROM outbox ORDER BY id").all() as Array<{ kind: string; template: string | null; weekly_id: number | null; created_at: string }>;
    const ofRun = outbox.filter((r) => r.kind === "digest" || r.template === "listing_ended");
    expect(ofRun.map((r) => r.template ?? (r.weekly_id === null ? "daily" : "weekly")).sort()).toEqual(["daily", "listing_ended", "weekly"]);
    for (const row of ofRun) expect(row.created_at).toBe(RUN_NOW);
    expect(db.prepare("SELECT date, created_at FROM weekly_editions WHERE place_geoid = ?").all(boise)).toEqual([{ date: "2026-12-02", created_at: RUN_NOW }]);
    // The listing's run ended at the sweep, on the run's clock.
    expect(db.prepare("SELECT status, ended_at FROM listing_orders WHERE id = ?").get(listing.orderId)).toEqual({ status: "ended", ended_at: RUN_NOW });
    // The run record: it started at the run's now and finished its measured duration later.
    const record = JSON.parse(db.prepare("SELECT value FROM meta WHERE key = 'morning.last_run'").pluck().get() as string) as { at: string; finishedAt: string; ms: number };
    expect(record.at).toBe(RUN_NOW);
    expect(record.finishedAt).toBe(new Date(Date.parse(RUN_NOW) + record.ms).toISOString());
  }, 120_000);
});
