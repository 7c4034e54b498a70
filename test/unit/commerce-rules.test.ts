import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { reputationDomain, RULES, screenListing, SHARED_PLATFORMS, type ScreenInput } from "../../src/core/mail/compliance.ts";
import { canTransition, ORDER_STATUSES, TRANSITIONS } from "../../src/contract/order-status.ts";
import { formatCents, leaseQuote, operatorShareCents, standardCardFeeCents } from "../../src/core/commerce/pricing.ts";
import { reversalOf, shareEntry, statementTotals } from "../../src/core/commerce/revenue-share.ts";

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
  const ok: ScreenInput = { product: "event", title: "Harvest fair", description: "Pumpkins and cider.", url: "https://fair.example/", buyerEmail: "a@example.com", startsAt: "2026-11-28" };
  const facts = { today: "2026-11-22", disposableEmail: false, rejectedDomains: new Set<string>() };

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
    expect(screenListing({ ...ok, url: "https://seen.example.com/x" }, { ...facts, rejectedDomains: new Set(["example.com"]) })).toMatchObject({ action: "hold", rule: "rejected-domain" });
  });

  it("domain reputation is the business's own registrable domain (Public Suffix List), never a shared platform's", () => {
    // Subdomains and www share their registrable domain; multi-part public suffixes are honoured.
    expect(reputationDomain("https://shop.rosemary-bakery.com/menu")).toBe("rosemary-bakery.com");
    expect(reputationDomain("https://www.rosemary-bakery.com/")).toBe("rosemary-bakery.com");
    expect(reputationDomain("https://events.harvest.co.uk/")).toBe("harvest.co.uk");
    // Private suffixes: each user's site on a hosting platform is its own domain.
    expect(reputationDomain("https://joes-cafe.github.io/")).toBe("joes-cafe.github.io");
    expect(reputationDomain("https://joes-cafe.myshopify.com/")).toBe("joes-cafe.myshopify.com");
    // Site builders outside the list: the site's own host.
    expect(reputationDomain("https://joescafe.wordpress.com/about")).toBe("joescafe.wordpress.com");
    expect(reputationDomain("https://wordpress.com/")).toBeUndefined();
    // Shared platforms (and their subdomains), IP addresses and unparsable links carry no reputation.
    for (const url of ["https://www.facebook.com/joescafe", "https://m.facebook.com/events/1", "https://linktr.ee/joe", "https://www.etsy.com/shop/joe",
      "https://www.eventbrite.com/e/fair-1", "https://calendar.google.com/calendar/u/0", "https://instagram.com/joe", "http://192.0.2.7/", "not a url"]) {
      expect(reputationDomain(url), url).toBeUndefined();
    }
    expect(SHARED_PLATFORMS.has("facebook.com")).toBe(true);
  });

  it("a rejected listing on facebook.com does not hold the next legitimate one there; one on a business's domain holds its subdomains", () => {
    const rejected = new Set([reputationDomain("https://www.facebook.com/casino-night"), reputationDomain("https://promo.shady-deals.com/x")].filter((d): d is string => !!d));
    expect(screenListing({ ...ok, url: "https://www.facebook.com/joescafe" }, { ...facts, rejectedDomains: rejected })).toEqual({ action: "pass" });
    expect(screenListing({ ...ok, url: "https://shady-deals.com/fair" }, { ...facts, rejectedDomains: rejected })).toMatchObject({ action: "hold", rule: "rejected-domain", field: "url" });
    expect(screenListing({ ...ok, url: "https://fair.example/" }, { ...facts, rejectedDomains: rejected })).toEqual({ action: "pass" });
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

