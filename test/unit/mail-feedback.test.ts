import { describe, expect, it } from "vitest";
import { classifyBounce, isPolicyRefusal, outboxIdOf, unsubscribeTokenOf } from "../../src/core/mail/feedback.ts";

describe("what a provider's bounce means for the reader", () => {
  it("a permanent refusal of the address is hard; the same words about the sender are policy, never the reader's", () => {
    expect(classifyBounce(true, "smtp; 550 5.1.1 <jane@example.com>... User unknown")).toBe("hard_bounce");
    expect(classifyBounce(true, "550-5.1.1 The email account that you tried to reach does not exist")).toBe("hard_bounce");
    // Gmail, Microsoft and Yahoo refusing the sender (2024-2025 sender rules, blocklists, throttling).
    for (const text of [
      "550 5.7.26 Unauthenticated email from citydaily.example is not accepted due to domain's DMARC policy",
      "421 4.7.28 Our system has detected an unusual rate of unsolicited mail originating from your IP address",
      "550 5.7.515 Access denied, sending domain citydaily.example does not meet the required authentication level",
      "554 Service unavailable; Client host [192.0.2.1] blocked using Spamhaus",
      "421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred due to unexpected volume or user complaints",
      "550 Message rejected: too many messages from your IP; throttled",
    ]) {
      expect(isPolicyRefusal(text)).toBe(true);
      expect(classifyBounce(true, text)).toBe("policy");
    }
    expect(classifyBounce(false, "452 4.2.2 Mailbox full")).toBe("soft_bounce");
    expect(classifyBounce(true, "")).toBe("hard_bounce");
  });

  it("finds our outbox row only in our own Message-IDs, and our token only in our unsubscribe link", () => {
    expect(outboxIdOf("<digest-123@citydaily.example>", "citydaily.example")).toBe(123);
    expect(outboxIdOf("welcome-7@CityDaily.example", "citydaily.example")).toBe(7);
    expect(outboxIdOf("<digest-123@elsewhere.example>", "citydaily.example")).toBeUndefined();
    expect(outboxIdOf("<0100018c-ses@email.amazonses.com>", "citydaily.example")).toBeUndefined();
    expect(outboxIdOf(null, "citydaily.example")).toBeUndefined();
    expect(unsubscribeTokenOf("<https://citydaily.example/unsubscribe/12.abc_DEF-1>, <mailto:unsubscribe@citydaily.example?subject=unsubscribe%2012.abc>")).toBe("12.abc_DEF-1");
    expect(unsubscribeTokenOf("<mailto:unsubscribe@citydaily.example>")).toBeUndefined();
  });
});
