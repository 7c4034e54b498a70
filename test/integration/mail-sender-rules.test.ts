import crypto from "node:crypto";
import { dkimVerify } from "mailauth/lib/dkim/verify.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queueEditionDigests } from "../../src/services/mail/digests.ts";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { addEdition, geoidOf } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink, type ReceivedMail } from "../helpers/smtp-sink.ts";

// The bulk-sender rules of Gmail, Yahoo and Microsoft (2024-2025), checked on the mail as it
// leaves over SMTP, with an independent verifier (mailauth) rather than by reading our own headers.
const NOW = "2026-11-22T12:00:00.000Z";
const NY = { city: "New York", state: "New York", slug: "new-york-new-york" };
const { privateKey, publicKey } = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
const DKIM_KEY = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
const DNS_NAME = "mail2026._domainkey.citydaily.example";
// The TXT record as DNS would serve it: strings of at most 255 characters.
const TXT = `v=DKIM1; k=rsa; p=${publicKey.export({ type: "spki", format: "der" }).toString("base64")}`.match(/.{1,255}/g)!;
/** A stub of dns.promises.resolve that knows only our selector's key. */
const resolver = async (name: string, type: string) => {
  if (name === DNS_NAME && type === "TXT") return [TXT];
  throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: "ENOTFOUND" });
};

let sink: SmtpSink;
let server: TestServer;
let welcome: ReceivedMail;
let digest: ReceivedMail;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  server = await startTestServer({
    SMTP_URL: sink.url, MAIL_SENDER: "off", NOW, MAIL_FROM: "citydaily <news@citydaily.example>",
    BASE_URL: "https://citydaily.example", POSTAL_ADDRESS: "citydaily, 100 Main St, Springfield, IL 62701",
    DKIM_DOMAIN: "citydaily.example", DKIM_SELECTOR: "mail2026", DKIM_PRIVATE_KEY: DKIM_KEY,
  });
  expect((await server.post("/api/subscribe", { email: "ann@example.org", ...NY })).status).toBe(200);
  await sendPendingMail(server.ctx);
  const db = server.ctx.db;
  const id = addEdition(db, NY.slug, "2026-11-22", "New York, Sunday November 22")!;
  queueEditionDigests(server.ctx, { id, placeGeoid: geoidOf(db, NY.slug), date: "2026-11-22" });
  await sendPendingMail(server.ctx);
  await sink.waitForCount(2);
  [welcome, digest] = sink.to("ann@example.org");
});
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
});

describe("what the mailbox providers check on every bulk message", () => {
  it("the DKIM signature verifies with mailauth and covers List-Unsubscribe, List-Unsubscribe-Post and Feedback-ID", async () => {
    expect(digest.parsed.subject).toBe("New York, Sunday November 22");
    // The digest went out from the precompiled template (raw), the welcome composed by nodemailer: both signed alike.
    for (const mail of [welcome, digest]) {
      const { results } = await dkimVerify(Buffer.from(mail.raw), { resolver, curTime: new Date() });
      expect(results).toHaveLength(1);
      const [r] = results;
      expect(r.status.result).toBe("pass");
      expect(r.signingDomain).toBe("citydaily.example");
      expect(r.status.aligned).toBe("citydaily.example"); // DMARC alignment with From
      expect(r.signingHeaders!.keys.toLowerCase().split(/\s*:\s*/)).toEqual(expect.arrayContaining(["from", "list-id", "list-unsubscribe", "list-unsubscribe-post", "feedback-id"]));
    }
  });

  it("changing any of those headers after signing breaks the signature (they are really covered)", async () => {
    const tampered = [
      digest.raw.replace(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click/m, "List-Unsubscribe-Post: List-Unsubscribe=Two-Clicks"),
      digest.raw.replace(/^(List-Unsubscribe: <https:\/\/citydaily\.example\/unsubscribe\/)/m, "$1x"),
      digest.raw.replace(/^Feedback-ID: new-york-new-york:/m, "Feedback-ID: boston-massachusetts:"),
    ];
    for (const raw of tampered) {
      expect(raw).not.toBe(digest.raw);
      const { results } = await dkimVerify(Buffer.from(raw), { resolver, curTime: new Date() });
      expect(results[0].status.result).toBe("fail");
    }
  });

  it("one-click unsubscribe over HTTPS, a stable List-Id per town, and a Feedback-ID of town, kind of mail and sender", () => {
    for (const [mail, kind] of [[welcome, "welcome"], [digest, "digest"]] as const) {
      expect(mail.header("List-Unsubscribe")).toMatch(/^<https:\/\/citydaily\.example\/unsubscribe\/[\w.%-]+>, <mailto:unsubscribe@citydaily\.example\?subject=unsubscribe%20[\w.%-]+>$/);
      expect(mail.header("List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
      expect(mail.header("List-Id")).toBe('"New York, New York daily" <new-york-new-york.citydaily.example>');
      expect(mail.header("Feedback-ID")).toBe(`new-york-new-york:${kind}:citydaily`);
    }
  });
});

describe("DKIM_SKIP_FIELDS (relays that rewrite headers)", () => {
  it("leaves Message-ID and Date out of the signature, which still verifies and still covers the list headers", async () => {
    const sesSink = await new SmtpSink().start();
    const ses = await startTestServer({
      SMTP_URL: sesSink.url, MAIL_SENDER: "off", NOW, MAIL_FROM: "citydaily <news@citydaily.example>", BASE_URL: "https://citydaily.example",
      DKIM_DOMAIN: "citydaily.example", DKIM_SELECTOR: "mail2026", DKIM_PRIVATE_KEY: DKIM_KEY, DKIM_SKIP_FIELDS: "Message-ID:Date",
    });
    try {
      expect((await ses.post("/api/subscribe", { email: "bob@example.org", ...NY })).status).toBe(200);
      await sendPendingMail(ses.ctx);
      await sesSink.waitForCount(1);
      const [mail] = sesSink.to("bob@example.org");
      // What Amazon SES does on the way: its own Message-ID and Date.
      const rewritten = mail.raw.replace(/^Message-ID: .*$/m, "Message-ID: <0100018c-ses@email.amazonses.com>").replace(/^Date: .*$/m, "Date: Sun, 22 Nov 2026 12:00:09 +0000");
      const { results } = await dkimVerify(Buffer.from(rewritten), { resolver, curTime: new Date() });
      expect(results[0].status.result).toBe("pass");
      const keys = results[0].signingHeaders!.keys.toLowerCase().split(/\s*:\s*/);
      expect(keys).not.toContain("message-id");
      expect(keys).not.toContain("date");
      expect(keys).toEqual(expect.arrayContaining(["list-unsubscribe", "list-unsubscribe-post", "feedback-id"]));
    } finally {
      await ses.stop();
      await sesSink.stop();
    }
  });
});
