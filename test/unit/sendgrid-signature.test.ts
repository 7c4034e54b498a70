import { describe, expect, it } from "vitest";
import { createSendgridWebhook } from "../../src/integrations/mail/sendgrid.ts";

// SendGrid's own test vector (its Node library's eventwebhook tests): a real signature made by
// SendGrid's signer, so our verification is checked against theirs, not only against itself.
const PUBLIC_KEY = "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEEDr2LjtURuePQzplybdC+u4CwrqDqBaWjcMMsTbhdbcwHBcepxo7yAQGhHPTnlvFYPAZFceEu/1FwCM/QmGUhA==";
const SIGNATURE = "MEUCIQCtIHJeH93Y+qpYeWrySphQgpNGNr/U+UyUlBkU6n7RAwIgJTz2C+8a8xonZGi6BpSzoQsbVRamr2nlxFDWYNH2j/0=";
const TIMESTAMP = "1588788367";
const PAYLOAD = JSON.stringify({ category: "example_payload", event: "test_event", message_id: "message_id" });

const headers = (signature = SIGNATURE) => new Headers({ "X-Twilio-Email-Event-Webhook-Signature": signature, "X-Twilio-Email-Event-Webhook-Timestamp": TIMESTAMP });

describe("SendGrid's Signed Event Webhook", () => {
  const hook = createSendgridWebhook({ publicKey: PUBLIC_KEY });

  it("accepts SendGrid's documented signature at its time, and ignores an event it does not act on", async () => {
    const d = await hook.receive({ raw: PAYLOAD, headers: headers(), nowMs: Number(TIMESTAMP) * 1000 + 60_000 });
    expect(d).toMatchObject({ events: [], ignored: 1 });
    // The replay key is the decoded signature (r and the low s, in hex), the same however the header
    // spells it: without its padding, or with a stray character a base64 reader skips.
    expect(d.nonce).toMatch(/^[0-9a-f]{64}\.[0-9a-f]{64}$/);
    for (const spelling of [SIGNATURE.replace(/=+$/, ""), `.${SIGNATURE}`]) {
      const again = await hook.receive({ raw: PAYLOAD, headers: headers(spelling), nowMs: Number(TIMESTAMP) * 1000 + 60_000 });
      expect(again.nonce).toBe(d.nonce);
    }
  });

  it("refuses it changed by one byte, signed otherwise, or replayed an hour later", async () => {
    const at = Number(TIMESTAMP) * 1000;
    await expect(hook.receive({ raw: PAYLOAD.replace("test_event", "test_evenT"), headers: headers(), nowMs: at })).rejects.toMatchObject({ code: "unauthorized" });
    await expect(hook.receive({ raw: PAYLOAD, headers: headers(SIGNATURE.replace("MEUCIQCt", "MEUCIQCu")), nowMs: at })).rejects.toMatchObject({ code: "unauthorized" });
    await expect(hook.receive({ raw: PAYLOAD, headers: headers(), nowMs: at + 3600_000 })).rejects.toMatchObject({ code: "unauthorized", message: expect.stringMatching(/stale/) });
  });

  it("refuses at start-up a key that is not one", () => {
    expect(() => createSendgridWebhook({ publicKey: "not a key" })).toThrow(/SENDGRID_WEBHOOK_PUBLIC_KEY/);
  });
});
