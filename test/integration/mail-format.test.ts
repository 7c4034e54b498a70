import { doIUseEmail } from "@jsx-email/doiuse-email";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { enqueueTransactional } from "../../src/store/mail/outbox.ts";
import { startOpenMeteoServer, type OpenMeteoServer } from "../helpers/open-meteo-server.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink, type ReceivedMail } from "../helpers/smtp-sink.ts";

// What a reader sees in the messages themselves, parsed from the SMTP sink: the plain-text part
// reads as plain text, the HTML part has the preheader, the masthead and the phone/dark-mode styles,
// and the Message-ID is on the From address's domain even when BASE_URL is an IP address.
const NOW = "2026-11-22T12:00:00.000Z";
const NY = { city: "New York", state: "New York", slug: "new-york-new-york" };

let sink: SmtpSink;
let meteo: OpenMeteoServer;
let server: TestServer;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  meteo = await startOpenMeteoServer({ today: "2026-11-22" });
  // No BASE_URL: the server's own http://127.0.0.1:port, as on a developer's machine.
  server = await startTestServer({
    SMTP_URL: sink.url, MAIL_SENDER: "off", MORNING_SCHEDULE: "off", NOW, OPEN_METEO_URL: meteo.url, WEATHER_TIMEOUT_MS: "2000",
    SUBSCRIBE_RATE_LIMIT: "1000", MAIL_FROM: "citydaily <news@citydaily.example>", POSTAL_ADDRESS: "citydaily, 100 Main St, Springfield, IL 62701",
  });
});
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
  await meteo?.close();
});

/** Markdown a reader would see as stray symbols: table pipes, bold stars, heading hashes, link brackets. */
function expectNoMarkdown(text: string) {
  expect(text).not.toMatch(/\|/);
  // Links carry base64url tokens, where "__" is an ordinary pair of characters, not emphasis.
  expect(text.replace(/https?:\/\/\S+/g, "<link>")).not.toMatch(/\*\*|__/);
  expect(text).not.toMatch(/^\s*#{1,6}\s/m);
  expect(text).not.toMatch(/\]\(https?:/);
  expect(text).not.toMatch(/^\s*\|?-{3,}\|/m);
}

/** `preheaderStart` null: the body's own first words are the preheader (no line of its own). */
function expectNewsletterHtml(mail: ReceivedMail, preheaderStart: string | null) {
  const html = mail.parsed.html as string;
  // Preheader: in plain sight before the masthead (hidden text is what spam filters look for).
  const preheader = preheaderOf(html);
  if (preheaderStart === null) expect(preheader).toBeUndefined();
  else expect(preheader?.startsWith(preheaderStart), `preheader "${preheader?.slice(0, 80)}"`).toBe(true);
  expect(html).not.toMatch(/display:\s*none|font-size:\s*[01]px|opacity:\s*0/);
  // Masthead: the brand at the top of the message.
  expect(html).toMatch(/class="masthead"[^>]*>.*city.*daily/);
  // Desktop Outlook: a fixed 600 px table around the column.
  expect(html).toMatch(/<!--\[if mso\]><table role="presentation" align="center" width="600"[^>]*><tr><td width="600"><!\[endif\]-->\n(<div class="preheader"[^\n]*\n)?<table role="presentation" class="column"/);
  expect(html).toContain("<!--[if mso]></td></tr></table><![endif]-->");
  // Phone and dark mode.
  expect(html).toContain('<meta name="color-scheme" content="light dark">');
  expect(html).toContain("@media (prefers-color-scheme:dark)");
  expect(html).toMatch(/@media \(max-width:620px\)/);
  expect(html).toContain('<meta name="viewport" content="width=device-width,initial-scale=1">');
}

/** The preheader line's text, shown before the masthead; undefined when the email has none. */
function preheaderOf(html: string): string | undefined {
  const m = /<div class="preheader" style="[^"]*">([^<]*)</.exec(html);
  if (!m) return undefined;
  expect(m.index, "the preheader comes before the masthead").toBeLessThan(html.indexOf('class="masthead"'));
  return m[1].replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, "&");
}

describe("the emails as a reader gets them", () => {
  it("digest: plain text without markdown, the forecast as aligned columns; HTML with preheader and masthead", async () => {
    expect((await server.post("/api/subscribe", { email: "ann@example.org", ...NY })).status).toBe(200);
    await sendPendingMail(server.ctx);
    await sink.waitForCount(1);
    const morning = await runMorning(server.ctx);
    expect(morning.digestsQueued).toBe(1);
    await sendPendingMail(server.ctx);
    await sink.waitForCount(2);
    const [welcome, digest] = sink.to("ann@example.org");

    // Welcome.
    expectNoMarkdown(welcome.parsed.text!);
    expectNewsletterHtml(welcome, "Your New York edition arrives each morning");
    expect(welcome.parsed.html as string).toContain("Welcome to the New York, New York daily");

    // Digest: the edition's markdown had a weather table, bold and headings; the text part has none of that syntax.
    const edition = server.ctx.db.prepare("SELECT markdown FROM editions").pluck().get() as string;
    expect(edition).toMatch(/^\| Day \| Conditions/m);
    expect(edition).toContain("## Weather");
    const text = digest.parsed.text!;
    expectNoMarkdown(text);
    expect(text).toMatch(/^WEATHER$/m);
    // The forecast table as aligned lines: the header and each day start their columns at the same place.
    const lines = text.split("\n");
    const header = lines.findIndex((l) => /^Day\s{2,}Conditions\s{2,}High \(°F\)\s{2,}Low \(°F\)/.test(l));
    expect(header, text).toBeGreaterThanOrEqual(0);
    const rows = lines.slice(header + 1, header + 8);
    expect(rows).toHaveLength(7);
    for (const row of rows) expect(row).toMatch(/^(Sun|Mon|Tue|Wed|Thu|Fri|Sat), [A-Z][a-z]{2} \d{1,2}\s{2,}\S/);
    const highColumn = lines[header].indexOf("High");
    for (const row of rows) expect(row.slice(highColumn)).toMatch(/^-?\d+\s/);
    expect(text).toContain("Read on the web: ");
    expect(text).toContain("Unsubscribe from New York: ");

    // A town named like its state is greeted once (readers got "Good morning, New York, New York").
    expectNewsletterHtml(digest, "In this edition: Tides today · Weather · On the calendar · ");
    expect(text).toContain("Good morning, New York. Here is your day, a ");
    const html = digest.parsed.html as string;
    expect(html).toContain("New York, New York · Sunday, November 22, 2026");
    // Styled headings and tables, on the elements themselves (webmail drops <head> styles).
    expect(html).toMatch(/<h2 style="[^"]*font-size:19px[^"]*">Weather<\/h2>/);
    expect(html).toMatch(/<table role="table" style="border-collapse:collapse;width:100%/);
    expect(html).not.toMatch(/\salign="(left|right)"/);
  });

  it("desktop Outlook and Windows Mail: caniemail reports only what is harmless there", () => {
    // @media (phone and dark-mode adjustments), border-radius (square corners), role on tables (for
    // screen readers), overflow-wrap/word-break on the share link (it fits in 600 px). Hidden text's
    // opacity and overflow, reported before, are gone with the hidden preheader.
    const harmless = new Set(["@media", "border-radius", "role attribute", "overflow-wrap", "word-break"]);
    for (const mail of sink.to("ann@example.org")) {
      const result = doIUseEmail(mail.parsed.html as string, { emailClients: ["outlook.windows", "outlook.windows-mail"] });
      const features = new Set((result.success ? [] : result.errors).map((e) => /^`([^`]+)`/.exec(e)?.[1] ?? e));
      expect([...features].filter((f) => !harmless.has(f)), mail.parsed.subject).toEqual([]);
    }
  });

  it("puts the Message-ID on the From address's domain although BASE_URL is an IP address", () => {
    expect(server.ctx.config.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const [welcome, digest] = sink.to("ann@example.org");
    expect(welcome.header("Message-ID")).toMatch(/^<welcome-\d+@citydaily\.example>$/);
    expect(digest.header("Message-ID")).toMatch(/^<digest-\d+@citydaily\.example>$/);
  });

  it("commerce mail: the same masthead and preheader, plain text without markup", async () => {
    const now = new Date(NOW);
    enqueueTransactional(server.ctx.db, {
      to: "buyer@example.org", template: "listing_published", dedupeKey: "test-published",
      payload: { product: "event", title: "Farmers market", town: "New York", orderId: "lo_00000000-0000-0000-0000-000000000000", statusUrl: `${server.url}/purchase/done?order=x`, townUrl: `${server.url}/new-york-new-york`, endsOn: "2026-12-01" },
    }, now.getTime(), NOW);
    await sendPendingMail(server.ctx);
    await sink.waitForCount(3);
    const [mail] = sink.to("buyer@example.org");
    expectNoMarkdown(mail.parsed.text!);
    expect(mail.parsed.text).toContain("Your event listing in New York is now published on the town's calendar.");
    // Its first sentence opens the body: the inbox shows it without a preheader line of its own.
    expectNewsletterHtml(mail, null);
    expect(mail.header("Message-ID")).toMatch(/@citydaily\.example>$/);
  });
});
