import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareEdition, renderDigest } from "../../src/core/edition/email-render.ts";
import { queueEditionDigests } from "../../src/services/mail/digests.ts";
import { mailSenderIdentity } from "../../src/services/mail/messages.ts";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { editionForMail } from "../../src/store/mail/outbox.ts";
import { addEdition, addSubscriber, geoidOf } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink, type ReceivedMail } from "../helpers/smtp-sink.ts";

// The digest is composed once per edition and filled in per reader (src/integrations/mail/
// message-template.ts). What a reader gets must be exactly the digest rendered for them alone,
// and nothing of another reader's may reach them.
const DENVER = "denver-colorado";
const READERS = ["ann@example.org", "bob.smith+news@example.org"];
// Not header-safe (an apostrophe): composed the per-message way, and must read the same.
const ODD = "o'brien@example.org";
// Non-ASCII, "=" (quoted-printable's escape), a line that html-to-text starts with a dot (SMTP
// dot-stuffing), and a word longer than a quoted-printable line.
const BODY = `Café au lait at 7 = a good start; 48°F ☀ and “quotes”. ${"x".repeat(70)} .dotfirst ${"long".repeat(30)} end.`;

let sink: SmtpSink;
let server: TestServer;
let editionId: number;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  server = await startTestServer({
    SMTP_URL: sink.url, MAIL_SENDER: "off", MORNING_SCHEDULE: "off", NOW: "2026-11-22T15:00:00.000Z",
    MAIL_FROM: "citydaily <news@citydaily.example>", POSTAL_ADDRESS: "citydaily, 100 Main St, Springfield, IL 62701",
  });
  for (const email of [...READERS, ODD]) addSubscriber(server.ctx.db, DENVER, email);
  editionId = addEdition(server.ctx.db, DENVER, "2026-11-22", "Denver, Sunday November 22", BODY)!;
  expect(queueEditionDigests(server.ctx, { id: editionId, placeGeoid: geoidOf(server.ctx.db, DENVER), date: "2026-11-22" })).toBe(3);
  expect(await sendPendingMail(server.ctx)).toMatchObject({ sent: 3, failed: 0, retried: 0 });
  await sink.waitForCount(3);
});
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
});

const tokenOf = (mail: ReceivedMail) => /\/unsubscribe\/([\w.-]+)>/.exec(mail.header("List-Unsubscribe")!)![1];
/** The reader's referral code, from the share line's subscribe link. */
const refOf = (mail: ReceivedMail) => /\?ref=([0-9a-f]+)/.exec(mail.parsed.text ?? "")![1];
const digestOf = (email: string) => {
  const mails = sink.to(email);
  expect(mails).toHaveLength(1);
  return mails[0];
};
/** The message with this reader's own values put back as placeholders. */
const generic = (text: string, mail: ReceivedMail, email: string) =>
  text.replaceAll(email, "EMAIL").replaceAll(tokenOf(mail), "TOKEN").replaceAll(refOf(mail), "REF").replaceAll(mail.header("Message-ID")!, "MESSAGE-ID")
    .replace(/^Date: .*$/m, "Date: DATE");

describe("digests composed once per edition", () => {
  it("give each reader exactly the digest rendered for them alone", () => {
    const sender = mailSenderIdentity(server.ctx);
    const edition = prepareEdition(editionForMail(server.ctx.db, editionId)!);
    const city = { name: "Denver", state: "Colorado", slug: DENVER };
    for (const email of [...READERS, ODD]) {
      const mail = digestOf(email);
      const expected = renderDigest(sender, { email, token: decodeURIComponent(tokenOf(mail)), ref: refOf(mail) }, city, edition);
      expect(mail.parsed.subject).toBe("Denver, Sunday November 22");
      expect(mail.parsed.to).toMatchObject({ value: [{ address: email }] });
      expect(mail.parsed.text).toBe(expected.text);
      expect(mail.parsed.html).toBe(expected.html);
      for (const [name, value] of Object.entries(expected.headers)) expect(mail.header(name), name).toBe(value);
      expect(mail.header("Message-ID")).toMatch(/^<digest-\d+@citydaily\.example>$/);
      // The awkward parts of the body arrive intact: non-ASCII, "=", the dot at the start of a line.
      expect(mail.parsed.text).toContain("Café au lait at 7 = a good start; 48°F ☀");
      expect(mail.parsed.text).toMatch(/^\.dotfirst/m);
      // Every line within SMTP's limit, and quoted-printable's in the bodies.
      const [head, ...rest] = mail.raw.split("\r\n\r\n");
      for (const line of head.split("\r\n")) expect(line.length).toBeLessThanOrEqual(998);
      for (const line of rest.join("\r\n\r\n").split("\r\n")) expect(line.length, line).toBeLessThanOrEqual(76);
    }
  });

  it("are dated by the sender's clock: a pinned NOW gives every reader the same Date, composed once or per message", () => {
    for (const email of [...READERS, ODD]) expect(digestOf(email).header("Date"), email).toBe("Sun, 22 Nov 2026 15:00:00 +0000");
  });

  it("two readers' messages are identical apart from their own address, links, Message-ID and date", () => {
    const [a, b] = READERS.map((email) => ({ email, mail: digestOf(email) }));
    expect(tokenOf(a.mail)).not.toBe(tokenOf(b.mail));
    expect(refOf(a.mail)).not.toBe(refOf(b.mail));
    // The whole raw message, boundary included: one composition, filled twice.
    expect(generic(a.mail.raw, a.mail, a.email)).toBe(generic(b.mail.raw, b.mail, b.email));
    for (const { email, mail } of [a, b]) {
      const other = email === a.email ? b : a;
      const text = mail.parsed.text!;
      const html = mail.parsed.html as string;
      expect(text).toContain(`${email} subscribed to the Denver, Colorado daily`);
      expect(html).toContain(`${email} subscribed to the Denver, Colorado daily`);
      expect(text).toContain(`/unsubscribe/${tokenOf(mail)}`);
      expect(html).toContain(`/subscriptions/${tokenOf(mail)}`);
      for (const part of [text, html, mail.raw]) {
        expect(part).not.toContain(other.email);
        expect(part).not.toContain(tokenOf(other.mail));
        expect(part).not.toContain(`ref=${refOf(other.mail)}`);
      }
    }
  });

  it("each reader's links act for that reader only", async () => {
    const status = (email: string) => server.ctx.db.prepare("SELECT status FROM subscribers WHERE email = ?").pluck().get(email);
    const [a, b] = READERS.map(digestOf);
    // Ann: the RFC 8058 one-click POST to her List-Unsubscribe address.
    const annUrl = /<(http[^>]+)>/.exec(a.header("List-Unsubscribe")!)![1];
    const res = await fetch(annUrl, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" });
    expect(res.status).toBe(200);
    expect(status(READERS[0])).toBe("unsubscribed");
    expect(status(READERS[1])).toBe("active");
    expect(status(ODD)).toBe("active");
    // Bob: the manage page linked in his HTML shows his address; the unsubscribe link in his text part works.
    const manage = /href="([^"]+\/subscriptions\/[^"]+)"/.exec(b.parsed.html as string)![1];
    const page = await (await fetch(manage)).text();
    expect(page).toContain(READERS[1]);
    expect(page).not.toContain(READERS[0]);
    const bobUrl = /Unsubscribe from Denver: (\S+)/.exec(b.parsed.text!)![1];
    expect((await fetch(bobUrl, { method: "POST", body: "List-Unsubscribe=One-Click" })).status).toBe(200);
    expect(status(READERS[1])).toBe("unsubscribed");
    expect(status(ODD)).toBe("active");
  });
});

describe("failures on the template path (nodemailer's SMTPConnection, our own few pooled connections)", () => {
  const statusOf = (id: number) => server.ctx.db.prepare("SELECT status, attempts FROM outbox WHERE id = ?").get(id) as { status: string; attempts: number };
  const queueEdition = (date: string, emails: string[]) => {
    for (const email of emails) addSubscriber(server.ctx.db, DENVER, email);
    const id = addEdition(server.ctx.db, DENVER, date, `Denver, ${date}`, BODY)!;
    queueEditionDigests(server.ctx, { id, placeGeoid: geoidOf(server.ctx.db, DENVER), date });
    return (email: string) => server.ctx.db.prepare("SELECT o.id FROM outbox o JOIN subscribers s ON s.id = o.subscriber_id WHERE o.edition_id = ? AND s.email = ?").pluck().get(id, email) as number;
  };

  it("a 5xx for one reader bounces that reader only; a 4xx is retried after its backoff", async () => {
    const rowOf = queueEdition("2026-11-23", ["gone@example.org", "busy@example.org", "fine@example.org"]);
    sink.refuseRecipient.set("gone@example.org", { code: 550, message: "5.1.1 no such mailbox" });
    // A mailbox status (4.2.x): this reader's, retried; a system status (4.3.x) would be the relay's (smtp-faults.test.ts).
    sink.refuseRecipient.set("busy@example.org", { code: 450, message: "4.2.1 mailbox busy, try later" });
    const t0 = Date.parse("2026-11-22T15:00:00.000Z");
    const r = await sendPendingMail(server.ctx, { now: () => t0 });
    expect(r).toMatchObject({ sent: 2, failed: 1, retried: 1 }); // fine@ and the odd reader's
    expect(statusOf(rowOf("gone@example.org")).status).toBe("failed");
    expect(server.ctx.db.prepare("SELECT reason, source FROM suppressions WHERE email = 'gone@example.org'").get()).toEqual({ reason: "bounced", source: "smtp" });
    expect(statusOf(rowOf("busy@example.org"))).toEqual({ status: "pending", attempts: 1 });
    expect(sink.to("fine@example.org").map((m) => m.parsed.subject)).toEqual(["Denver, 2026-11-23"]);
    sink.refuseRecipient.delete("busy@example.org");
    expect(await sendPendingMail(server.ctx, { now: () => t0 + 61_000 })).toMatchObject({ sent: 1 });
    expect(statusOf(rowOf("busy@example.org")).status).toBe("sent");
    expect(sink.to("busy@example.org").map((m) => m.parsed.subject)).toEqual(["Denver, 2026-11-23"]);
    expect(sink.to("gone@example.org")).toHaveLength(0);
  });

  it("server down, then back on the same port: waits with backoff, then goes out over new connections", async () => {
    const rowOf = queueEdition("2026-11-24", ["later@example.org"]);
    await sink.stop();
    const t0 = Date.parse("2026-11-22T15:10:00.000Z");
    // The Denver readers still subscribed: the odd address, busy@, fine@ and later@.
    // A delivery fault: the rows are put back (deferred) and sending pauses; nobody is held responsible.
    expect(await sendPendingMail(server.ctx, { now: () => t0 })).toMatchObject({ claimed: 4, sent: 0, deferred: 4 });
    expect(statusOf(rowOf("later@example.org")).status).toBe("pending");
    await sink.start();
    expect(await sendPendingMail(server.ctx, { now: () => t0 + 61_000 })).toMatchObject({ sent: 4, retried: 0 });
    expect(sink.to("later@example.org").map((m) => m.parsed.subject)).toEqual(["Denver, 2026-11-24"]);
  });

  it("upgrades with STARTTLS when the server offers it", async () => {
    const tls = await new SmtpSink({ starttls: true }).start();
    const live = await startTestServer({ SMTP_URL: `${tls.url}?tls.rejectUnauthorized=false`, MAIL_SENDER: "off", MAIL_FROM: "citydaily <news@citydaily.example>" });
    try {
      addSubscriber(live.ctx.db, DENVER, "tls@example.org");
      const id = addEdition(live.ctx.db, DENVER, "2026-11-22", "Denver over TLS", BODY)!;
      queueEditionDigests(live.ctx, { id, placeGeoid: geoidOf(live.ctx.db, DENVER), date: "2026-11-22" });
      expect(await sendPendingMail(live.ctx)).toMatchObject({ sent: 1 });
      const [mail] = tls.to("tls@example.org");
      expect(mail.secure).toBe(true);
      expect(mail.parsed.subject).toBe("Denver over TLS");
    } finally {
      await live.stop();
      await tls.stop();
    }
  });
});
