import { describe, expect, it } from "vitest";
import { addMonths, audienceDays, csv, leaseChargeDates, monthlyStatement, paidPeriodEnd, statementCsv } from "../../src/core/commerce/operator-statement.ts";

describe("the lease's billing periods", () => {
  it("adds months as Stripe bills: the day clamped to the month's length", () => {
    expect(addMonths("2026-01-31T10:00:00.000Z", 1)).toBe("2026-02-28T10:00:00.000Z");
    expect(addMonths("2028-01-31T10:00:00.000Z", 1)).toBe("2028-02-29T10:00:00.000Z");
    expect(addMonths("2026-11-22T12:00:00.000Z", 2)).toBe("2027-01-22T12:00:00.000Z");
  });
  it("charges at activation and each monthly anniversary up to now; the paid period ends at the next one", () => {
    expect(leaseChargeDates("2026-09-30T08:00:00.000Z", "2026-11-30T08:00:00.000Z")).toEqual(["2026-09-30T08:00:00.000Z", "2026-10-30T08:00:00.000Z", "2026-11-30T08:00:00.000Z"]);
    expect(paidPeriodEnd("2026-09-30T08:00:00.000Z", "2026-11-30T08:00:00.000Z")).toBe("2026-12-30T08:00:00.000Z");
    expect(paidPeriodEnd("2026-09-30T08:00:00.000Z", "2026-11-30T07:59:59.000Z")).toBe("2026-11-30T08:00:00.000Z");
  });
});

describe("the monthly statement", () => {
  it("counts sales, fees, the half, refunds where they happen, the lease charge and what was paid out", () => {
    const rows = monthlyStatement(
      [
        { kind: "share", grossCents: 2500, feeCents: 103, amountCents: 1198, createdAt: "2026-10-05T10:00:00Z" },
        { kind: "share", grossCents: 1000, feeCents: 59, amountCents: 470, createdAt: "2026-10-20T10:00:00Z" },
        { kind: "reversal", grossCents: -1000, feeCents: -59, amountCents: -470, createdAt: "2026-11-02T10:00:00Z" },
      ],
      [{ at: "2026-10-01T00:00:00Z", cents: 1000 }, { at: "2026-11-01T00:00:00Z", cents: 1000 }],
      [{ amountCents: 470, reversedCents: 470, createdAt: "2026-10-20T10:00:00Z", reversedAt: "2026-11-02T10:00:00Z" }],
    );
    expect(rows).toEqual([
      { month: "2026-10", listingsSold: 2, grossCents: 3500, feeCents: 162, shareCents: 1668, leaseChargeCents: 1000, netCents: 668, paidOutCents: 470 },
      { month: "2026-11", listingsSold: 0, grossCents: -1000, feeCents: -59, shareCents: -470, leaseChargeCents: 1000, netCents: -1470, paidOutCents: -470 },
    ]);
    expect(statementCsv("boise-idaho", rows)).toBe("town,month,listings_sold,gross_usd,fees_usd,your_share_usd,lease_charge_usd,net_usd,paid_out_usd\r\n" +
      "boise-idaho,2026-10,2,35.00,1.62,16.68,10.00,6.68,4.70\r\nboise-idaho,2026-11,0,-10.00,-0.59,-4.70,10.00,-14.70,-4.70\r\n");
  });
  it("quotes CSV fields with commas, quotes or line breaks", () => {
    expect(csv(["a", "b"], [["x,y", 'say "hi"'], ["line\nbreak", 3]])).toBe('a,b\r\n"x,y","say ""hi"""\r\n"line\nbreak",3\r\n');
  });
});

describe("audience days", () => {
  it("buckets instants by the town's local day, the last N days ending today", () => {
    const days = audienceDays(["2026-11-22T06:59:00Z", "2026-11-22T07:01:00Z", "2026-10-01T00:00:00Z"], ["2026-11-21T12:00:00Z"], "America/Boise", new Date("2026-11-22T12:00:00Z"), 3);
    expect(days).toEqual([
      { date: "2026-11-20", joined: 0, left: 0 },
      { date: "2026-11-21", joined: 1, left: 1 },
      { date: "2026-11-22", joined: 1, left: 0 },
    ]);
  });
});
