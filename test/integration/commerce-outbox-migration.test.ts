import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { migrate } from "../../src/store/db.ts";
import { enqueueMail, enqueueTransactional } from "../../src/store/mail/outbox.ts";

// Migration 008 rebuilds the outbox to take transactional mail: queued and sent rows of a live
// database survive it unchanged, and the old "once per subscriber and edition" key still holds.

const MIGRATIONS = path.resolve(import.meta.dirname, "../../src/store/migrations");

describe("migration 008 (transactional mail in the outbox)", () => {
  it("keeps existing rows and both uniqueness guarantees", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-outbox-"));
    const db = new Database(path.join(dir, "t.db"));
    try {
      db.pragma("foreign_keys = ON");
      for (const f of fs.readdirSync(MIGRATIONS).sort().filter((f) => f < "008")) db.exec(fs.readFileSync(path.join(MIGRATIONS, f), "utf8"));
      db.pragma("user_version = 7");
      db.prepare("INSERT INTO places (geoid, slug, name, census_name, place_type, func_stat, state_name, state_code, state_fips, latitude, longitude, timezone) VALUES ('1600000', 'x-idaho', 'X', 'X city', 'city', 'A', 'Idaho', 'ID', '16', 43, -116, 'America/Boise')").run();
      db.prepare("INSERT INTO subscribers (id, email, place_geoid, created_at, updated_at) VALUES (1, 'a@example.org', '1600000', 'now', 'now')").run();
      db.prepare("INSERT INTO outbox (kind, subscriber_id, status, next_attempt_at, message_id, created_at, sent_at) VALUES ('welcome', 1, 'sent', 5, '<w-1@x>', 'c', 's')").run();
      const before = db.prepare("SELECT * FROM outbox").all();

      migrate(db);
      expect(db.pragma("user_version", { simple: true })).toBeGreaterThanOrEqual(8);
      const after = db.prepare("SELECT id, kind, subscriber_id, edition_id, status, attempts, next_attempt_at, lease_owner, lease_until, last_error, message_id, created_at, sent_at FROM outbox").all();
      expect(after).toEqual(before);
      expect(enqueueMail(db, "welcome", 1, null, 1, "now")).toBe(false); // still once per subscriber
      expect(enqueueTransactional(db, { to: "buyer@example.com", template: "listing_published", payload: { a: 1 }, dedupeKey: "lo_1:listing_published" }, 1, "now")).toBe(true);
      expect(enqueueTransactional(db, { to: "buyer@example.com", template: "listing_published", payload: { a: 1 }, dedupeKey: "lo_1:listing_published" }, 1, "now")).toBe(false);
      // A transactional row needs its recipient and template; a subscriber row cannot pose as one.
      expect(() => db.prepare("INSERT INTO outbox (kind, next_attempt_at, created_at) VALUES ('transactional', 1, 'now')").run()).toThrow(/CHECK/);
      expect(() => db.prepare("INSERT INTO outbox (kind, subscriber_id, to_email, template, dedupe_key, next_attempt_at, created_at) VALUES ('transactional', 1, 'a', 'b', 'c', 1, 'now')").run()).toThrow(/CHECK/);
      expect(db.pragma("foreign_key_check")).toEqual([]);
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
