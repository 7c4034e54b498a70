import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RULES, screenListing, type ScreenInput } from "../../src/core/compliance.ts";
import { canTransition, ORDER_STATUSES, TRANSITIONS } from "../../src/core/order-status.ts";
import { formatCents, leaseQuote, operatorShareCents, standardCardFeeCents } from "../../src/core/pricing.ts";
import { reversalOf, shareEntry, statementTotals } from "../../src/core/revenue-share.ts";

describe("leaseQuote: the tier boundaries", () => {
  it.each([
    [0, 1, 1000, 1001, 1500],
    [1, 1, 1000, 1000, 1500],
    [999, 1, 1000, 2, 1500],
    [1000, 1, 1000, 1, 1500],
    [1001, 2, 1500, 1000, 2000],
    [2000, 2, 1500, 1, 2000],
    [2001, 3, 2000, 1000, 2500],
    [10_000, 10, 5500, 1, 6000],
  ])("%i subscribers: tier %i, %i cents, %i to the next tier at %i cents", (subs, tier, price, toNext, nextPrice) => {
    expect(leaseQuote(subs)).toEqual({ tier, priceCents: price, subscribersToNextTier: toNext, nextTierPriceCents: nextPrice });
  });
  it("refuses counts that are not non-negative integers", () => {
    expect(() => leaseQuote(-1)).toThrow(RangeError);
    expect(() => leaseQuote(1.5)).toThrow(RangeError);
  });
});

describe("money in integer cents", () => {
  it("standard U.S. card fee: 2.9% rounded half up, plus 30 cents", () => {
    expect(standardCardFeeCents(1000)).toBe(59);
    expect(standardCardFeeCents(2500)).toBe(103); // 72.5 -> 73
    expect(standardCardFeeCents(0)).toBe(0);
  });
  it("operator share: half the net, rounded down, never negative", () => {
    expect(operatorShareCents(1000, 59)).toBe(470);
    expect(operatorShareCents(2500, 103)).toBe(1198);
    expect(operatorShareCents(50, 80)).toBe(0);
    expect(Number.isInteger(operatorShareCents(999, 1))).toBe(true);
  });
  it("a reversal cancels its share in the statement", () => {
    const share = shareEntry(2500, 103);
    expect(statementTotals([share, shareEntry(1000, 59), reversalOf(share)])).toEqual({ grossCents: 1000, feeCents: 59, balanceCents: 470, entries: 3 });
    expect(formatCents(-1198)).toBe("-$11.98");
    expect(formatCents(5)).toBe("$0.05");
  });
});

describe("the compliance screen", () => {
  const ok: ScreenInput = { product: "event", title: "Harvest fair", description: "Pumpkins and cider.", url: "https://fair.example.com/", buyerEmail: "a@example.com", startsAt: "2026-11-28" };
  const facts = { today: "2026-11-22", disposableEmail: false, rejectedHosts: new Set<string>() };

  it("passes an ordinary listing and is deterministic", () => {
    expect(screenListing(ok, facts)).toEqual({ action: "pass" });
    expect(screenListing({ ...ok, title: "Casino night" }, facts)).toEqual(screenListing({ ...ok, title: "Casino night" }, facts));
  });

  it("matches whole words only, case and accents ignored", () => {
    expect(screenListing({ ...ok, title: "Classic car show" }, facts).action).toBe("pass"); // "ass" is not a word here
    expect(screenListing({ ...ok, description: "Time slots for the craft fair" }, facts).action).toBe("pass");
    expect(screenListing({ ...ok, title: "CASÍNO royale night" }, facts)).toMatchObject({ action: "reject", rule: "gambling", field: "title" });
  });

  it("an event on today's date is not past; yesterday's is; an end before the start is", () => {
    expect(screenListing({ ...ok, startsAt: "2026-11-22" }, facts).action).toBe("pass");
    expect(screenListing({ ...ok, startsAt: "2026-11-21T20:00" }, facts)).toMatchObject({ rule: "past-event", field: "startsAt" });
    expect(screenListing({ ...ok, startsAt: "2026-11-28", endsAt: "2026-11-27" }, facts)).toMatchObject({ rule: "past-event", field: "endsAt" });
  });

  it("a reject rule wins over a hold rule", () => {
    expect(screenListing({ ...ok, title: "MIRACLE CURE CASINO NIGHT" }, facts)).toMatchObject({ action: "reject", rule: "gambling" });
    expect(screenListing({ ...ok, url: "https://seen.example.com/x" }, { ...facts, rejectedHosts: new Set(["seen.example.com"]) })).toMatchObject({ action: "hold", rule: "rejected-domain" });
  });

  it("every rule id and reason is written in content/listing-policy.md", () => {
    const policy = fs.readFileSync(path.resolve(import.meta.dirname, "../../content/listing-policy.md"), "utf8");
    for (const rule of RULES) {
      expect(policy).toContain(`| \`${rule.id}\` | ${rule.reason} |`);
    }
    expect(new Set(RULES.map((r) => r.id)).size).toBe(RULES.length);
  });
});

describe("order statuses", () => {
  it("documents the transitions the issue names", () => {
    expect(canTransition("pending_payment", "paid")).toBe(true);
    expect(canTransition("paid", "published")).toBe(true);
    expect(canTransition("published", "ended")).toBe(true);
    expect(canTransition("awaiting_review", "published")).toBe(true);
    expect(canTransition("awaiting_review", "rejected")).toBe(true);
    expect(canTransition("held", "pending_payment")).toBe(true);
    expect(canTransition("pending_payment", "expired")).toBe(true);
    expect(canTransition("rejected", "published")).toBe(false);
    expect(canTransition("awaiting_review", "paid")).toBe(false);
    for (const s of ORDER_STATUSES) for (const t of TRANSITIONS[s]) expect(ORDER_STATUSES).toContain(t);
  });
});

