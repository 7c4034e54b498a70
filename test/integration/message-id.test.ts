import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink, type ReceivedMail } from "../helpers/smtp-sink.ts";

// Every message's Message-ID is on the sending domain, the From address's: never `@localhost`.
// Three set-ups over the real SMTP sink: a named BASE_URL host, an IP BASE_URL (IPv4 and IPv6:
// address literals) and MAIL_FROM set (its domain wins over BASE_URL's).

let sink: SmtpSink;
const servers: TestServer[] = [];

beforeAll(async () => {
  sink = await new SmtpSink().start();
});
afterAll(async () => {
  for (const s of servers) await s.stop();
  await sink?.stop();
});

/** Subscribes `email` on a fresh server with `env`, sends the welcome through the sink and returns it. */
async function welcomeWith(env: Record<string, string>, email: string): Promise<ReceivedMail> {
  const server = await startTestServer({ SMTP_URL: sink.url, MAIL_SENDER: "off", MORNING_SCHEDULE: "off", SUBSCRIBE_RATE_LIMIT: "1000", POSTAL_ADDRESS: "1 Main St, Springfield, IL", ...env });
  servers.push(server);
  expect((await server.post("/api/subscribe", { email, city: "Boise", state: "Idaho", slug: "boise-idaho" })).status).toBe(200);
  const before = sink.count;
  expect(await sendPendingMail(server.ctx)).toMatchObject({ sent: 1, failed: 0 });
  await sink.waitForCount(before + 1);
  const [mail] = sink.to(email);
  expect(mail.parsed.subject).toBe("Welcome to the Boise, Idaho daily");
  return mail;
}

/** The right side of the Message-ID, and the From address's domain. */
function sides(mail: ReceivedMail): { idDomain: string; fromDomain: string; messageId: string } {
  const messageId = mail.header("Message-ID") ?? "";
  const address = mail.parsed.from!.value[0].address!;
  return { messageId, idDomain: /@([^>]+)>$/.exec(messageId)?.[1] ?? "", fromDomain: address.slice(address.lastIndexOf("@") + 1) };
}

describe("Message-ID on the sending domain", () => {
  it("a named BASE_URL host: news@ that host, Message-ID on it", async () => {
    const mail = await welcomeWith({ BASE_URL: "https://news.example.org" }, "named@example.org");
    const { messageId, idDomain, fromDomain } = sides(mail);
    expect(mail.parsed.from!.value[0].address).toBe("news@news.example.org");
    expect(messageId).toMatch(/^<welcome-\d+@news\.example\.org>$/);
    expect(idDomain).toBe(fromDomain);
    expect(mail.header("List-Id")).toBe('"Boise, Idaho daily" <boise-idaho.news.example.org>');
  });

  it("an IPv4 BASE_URL: an address literal, news@[127.0.0.1] and <welcome-N@[127.0.0.1]>", async () => {
    // No BASE_URL: the test server's own http://127.0.0.1:PORT.
    const mail = await welcomeWith({}, "ipv4@example.org");
    const { messageId, idDomain, fromDomain } = sides(mail);
    expect(mail.parsed.from!.value[0].address).toBe("news@[127.0.0.1]");
    expect(mail.from).toBe("news@[127.0.0.1]"); // the SMTP envelope too
    expect(messageId).toMatch(/^<welcome-\d+@\[127\.0\.0\.1\]>$/);
    expect(idDomain).toBe(fromDomain);
    expect(mail.raw).not.toMatch(/@localhost\b/i);
    // List-Id has no literal form: RFC 2919's own namespace for lists without a domain.
    expect(mail.header("List-Id")).toBe('"Boise, Idaho daily" <boise-idaho.localhost>');
    expect(mail.header("List-Unsubscribe")).toMatch(/<mailto:unsubscribe@%5B127\.0\.0\.1%5D\?subject=unsubscribe%20[\w.-]+>$/);
  });

  it("an IPv6 BASE_URL: [IPv6:...] literals", async () => {
    const mail = await welcomeWith({ BASE_URL: "http://[::1]:4321" }, "ipv6@example.org");
    const { messageId, idDomain, fromDomain } = sides(mail);
    // Domains (and the literal's tag) are case-insensitive; nodemailer writes them in lower case.
    expect(mail.header("From")).toContain("news@[ipv6:::1]");
    expect(messageId).toMatch(/^<welcome-\d+@\[ipv6:::1\]>$/);
    expect(idDomain).toBe(fromDomain);
  });

  it("MAIL_FROM set: its domain is the sending domain, whatever BASE_URL is", async () => {
    const mail = await welcomeWith({ MAIL_FROM: "Boise Daily <letters@mail.citydaily.example>" }, "from@example.org");
    const { messageId, idDomain, fromDomain } = sides(mail);
    expect(mail.parsed.from!.value[0]).toEqual({ name: "Boise Daily", address: "letters@mail.citydaily.example" });
    expect(messageId).toMatch(/^<welcome-\d+@mail\.citydaily\.example>$/);
    expect(idDomain).toBe(fromDomain);
  });

  it("no message names localhost as its sender or Message-ID domain", () => {
    expect(sink.messages.length).toBe(4);
    for (const m of sink.messages) {
      expect(m.header("Message-ID")).not.toMatch(/@localhost>/i);
      expect(m.header("From")).not.toMatch(/@localhost\b/i);
    }
  });

  it("a MAIL_FROM without a domain is refused at start-up", async () => {
    await expect(startTestServer({ MAIL_FROM: "citydaily" })).rejects.toThrow(/MAIL_FROM must be an address/);
  });
});
