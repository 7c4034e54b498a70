import { describe, expect, it } from "vitest";
import { leaseLastDate, leaseRunning, notePrints } from "../../src/core/commerce/lease-end.ts";

// Whether what an operator set still speaks for the town (src/core/commerce/lease-end.ts).

const BOISE = "America/Boise";
const at = (iso: string) => new Date(iso);
const cancelled = { status: "active" as const, cancel_at: "2026-12-22T12:00:00.000Z" };

describe("an operator's note and its lease", () => {
  it("a staff note (no lease) always prints; an unknown lease never", () => {
    expect(notePrints({ leaseId: null, date: "2027-03-01" }, undefined, BOISE, at("2027-03-01T14:00:00Z"))).toBe(true);
    expect(notePrints({ leaseId: "tl_unknown", date: "2026-12-01" }, undefined, BOISE, at("2026-12-01T14:00:00Z"))).toBe(false);
  });

  it("a lease ending in the future: notes up to its last day print, a note dated after it never does, even while it runs", () => {
    const running = at("2026-12-21T14:00:00Z");
    expect(leaseRunning(cancelled, running)).toBe(true);
    expect(leaseLastDate(cancelled, BOISE)).toBe("2026-12-22");
    expect(notePrints({ leaseId: "tl_1", date: "2026-12-21" }, cancelled, BOISE, running)).toBe(true);
    expect(notePrints({ leaseId: "tl_1", date: "2026-12-22" }, cancelled, BOISE, running)).toBe(true);
    expect(notePrints({ leaseId: "tl_1", date: "2026-12-23" }, cancelled, BOISE, running)).toBe(false);
  });

  it("once the end has passed nothing of the lease prints, swept or not", () => {
    const after = at("2026-12-22T13:00:00Z");
    expect(leaseRunning(cancelled, after)).toBe(false);
    expect(notePrints({ leaseId: "tl_1", date: "2026-12-22" }, cancelled, BOISE, after)).toBe(false);
    for (const status of ["ended", "expired", "reserved"] as const) {
      expect(notePrints({ leaseId: "tl_1", date: "2026-12-01" }, { status, cancel_at: null }, BOISE, at("2026-12-01T14:00:00Z"))).toBe(false);
    }
    expect(notePrints({ leaseId: "tl_1", date: "2027-06-01" }, { status: "active", cancel_at: null }, BOISE, at("2027-06-01T14:00:00Z"))).toBe(true);
  });
});
