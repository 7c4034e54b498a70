import { describe, expect, it } from "vitest";
import { RateLimiter } from "../../src/lib/rate-limiter.ts";
import { isDisposableEmail } from "../../src/core/mail/disposable-email.ts";
import { renderDigest } from "../../src/core/edition/email-render.ts";
import { senderDomain } from "../../src/core/edition/email-headers.ts";
import { signSubscriberToken, tokenSubscriberId, verifySubscriberToken } from "../../src/core/readers/unsubscribe-tokens.ts";
import { backoffMs } from "../../src/services/mail/batch.ts";

describe("unsubscribe tokens", () => {
  const secret = "s3cret";
  it("verify only for the subscriber and address they were signed for", () => {
    const t = signSubscriberToken(secret, 42, "Reader@Example.org");
    expect(tokenSubscriberId(t)).toBe(42);
    expect(verifySubscriberToken(secret, t, 42, "reader@example.org")).toBe(true);
    expect(verifySubscriberToken(secret, t, 42, "other@example.org")).toBe(false);
    expect(verifySubscriberToken(secret, t.replace(/^42\./, "43."), 43, "reader@example.org")).toBe(false);
    expect(verifySubscriberToken("another-secret", t, 42, "reader@example.org")).toBe(false);
    expect(tokenSubscriberId("42")).toBeUndefined();
    expect(tokenSubscriberId("../../etc")).toBeUndefined();
  });
});

describe("disposable domains", () => {
  it("uses the maintained list, including subdomains and wildcard entries", () => {
    expect(isDisposableEmail("x@mailinator.com")).toBe(true);
    expect(isDisposableEmail("x@MAILINATOR.COM")).toBe(true);
    expect(isDisposableEmail("x@foo.33mail.com")).toBe(true);
    expect(isDisposableEmail("x@gmail.com")).toBe(false);
    expect(isDisposableEmail("x@example.org")).toBe(false);
  });
});

describe("email rendering", () => {
  it("keeps header values plain ASCII and escapes the footer", () => {
    const m = renderDigest(
      { from: "citydaily <news@citydaily.example>", baseUrl: "https://citydaily.example", postalAddress: "1 Main St <Suite 2>" },
      { email: "a@example.org", token: "7.abc" },
      { name: "Cañon City", state: "Colorado", slug: "canon-city-colorado" },
      { date: "2026-11-22", subject: "Cañon City today", html: "<p>Hi</p>", markdown: "Hi" },
    );
    expect(m.headers["List-Id"]).toBe('"Canon City, Colorado daily" <canon-city-colorado.citydaily.example>');
    expect(m.headers["List-Unsubscribe"]).toBe("<https://citydaily.example/unsubscribe/7.abc>, <mailto:unsubscribe@citydaily.example?subject=unsubscribe%207.abc>");
    for (const v of Object.values(m.headers)) expect(v).toMatch(/^[\x20-\x7e]+$/);
    expect(m.html).toContain("1 Main St &lt;Suite 2&gt;");
    expect(m.text).toContain("1 Main St <Suite 2>");
    expect(senderDomain("news@Example.com")).toBe("example.com");
  });
});

describe("backoff and rate limits", () => {
  it("doubles the retry delay up to six hours", () => {
    expect([1, 2, 3, 4].map((a) => backoffMs(60, a))).toEqual([60_000, 120_000, 240_000, 480_000]);
    expect(backoffMs(60, 30)).toBe(6 * 3600_000);
  });

  it("a token bucket per address: a burst, then one request per refill interval", () => {
    let now = 0;
    const limiter = new RateLimiter(3, 30, () => now); // one token back every 10 s
    for (let i = 0; i < 3; i++) expect(limiter.take("1.2.3.4")).toEqual({ ok: true });
    expect(limiter.take("1.2.3.4")).toEqual({ ok: false, retryAfterSeconds: 10 });
    expect(limiter.take("5.6.7.8")).toEqual({ ok: true });
    now = 4_000;
    expect(limiter.take("1.2.3.4")).toEqual({ ok: false, retryAfterSeconds: 6 });
    now = 10_000;
    expect(limiter.take("1.2.3.4")).toEqual({ ok: true });
  });
});
