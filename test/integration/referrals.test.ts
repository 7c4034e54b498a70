import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queueEditionDigests } from "../../src/services/digests.ts";
import { sendPendingMail } from "../../src/services/mail-sender.ts";
import { referralCounts } from "../../src/store/subscribers.ts";
import { addEdition, addSubscriber, geoidOf } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink, type ReceivedMail } from "../helpers/smtp-sink.ts";

// Forward to a neighbor: each digest's share line carries the reader's referral code; a subscription
// made through it (the API, or the form without JavaScript) is counted for that reader.
const ELY = "ely-nevada";
const ELY_TOWN = { city: "Ely", state: "Nevada", slug: ELY };
let sink: SmtpSink;
let server: TestServer;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  server = await startTestServer({ SMTP_URL: sink.url, MAIL_SENDER: "off", NOW: "2026-11-24T15:00:00.000Z", MAIL_FROM: "citydaily <news@citydaily.example>" });
  addSubscriber(server.ctx.db, ELY, "ann@example.org");
  addSubscriber(server.ctx.db, ELY, "bob@example.org");
  const id = addEdition(server.ctx.db, ELY, "2026-11-24", "Ely, Nov 24: Snow")!;
  queueEditionDigests(server.ctx, { id, placeGeoid: geoidOf(server.ctx.db, ELY), date: "2026-11-24" });
  await sendPendingMail(server.ctx);
  await sink.waitForCount(2);
});
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
});

const shareLinkOf = (mail: ReceivedMail) => {
  const text = mail.parsed.text!;
  const html = mail.parsed.html as string;
  expect(text).toContain("FORWARD TO A NEIGHBOR");
  expect(html).toContain("<strong>Forward to a neighbor.</strong> Know someone in Ely who would like this?");
  const link = /Send them this link to subscribe: (\S+)/.exec(text)![1];
  expect(html).toContain(`href="${link}"`);
  return link;
};

describe("forward to a neighbor", () => {
  it("each reader's digest carries their own share link to the town page, and 'Read on the web' once", () => {
    const [ann] = sink.to("ann@example.org");
    const [bob] = sink.to("bob@example.org");
    const a = shareLinkOf(ann);
    const b = shareLinkOf(bob);
    expect(a).toMatch(new RegExp(`^${server.url}/${ELY}\\?ref=[0-9a-f]{12}$`));
    expect(a).not.toBe(b);
    for (const part of [ann.parsed.text!, ann.parsed.html as string]) expect(part.match(/Read on the web/g)).toHaveLength(1);
  });

  it("a subscription through the API or the no-JavaScript form counts for the reader who shared", async () => {
    const annLink = shareLinkOf(sink.to("ann@example.org")[0]);
    const annRef = new URL(annLink).searchParams.get("ref")!;
    const viaApi = await server.post("/api/subscribe", { email: "carol@example.org", ...ELY_TOWN, ref: annRef });
    expect(viaApi.status).toBe(200);
    // The form posts from the page the link opened; its Referer carries the code.
    const viaForm = await fetch(`${server.url}/subscribe`, {
      method: "POST", redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Referer: annLink },
      body: new URLSearchParams({ email: "dan@example.org", slug: ELY, city: "Ely", state: "Nevada" }).toString(),
    });
    expect(viaForm.status).toBeLessThan(400);
    // An unknown code, or one on another site's address, counts for nobody and does not stop the subscription.
    expect((await server.post("/api/subscribe", { email: "erin@example.org", ...ELY_TOWN, ref: "ffffffffffff" })).status).toBe(200);
    const foreign = await fetch(`${server.url}/subscribe`, {
      method: "POST", redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Referer: `https://elsewhere.example/${ELY}?ref=${annRef}` },
      body: new URLSearchParams({ email: "fay@example.org", slug: ELY, city: "Ely", state: "Nevada" }).toString(),
    });
    expect(foreign.status).toBeLessThan(400);

    const counts = referralCounts(server.ctx.db, geoidOf(server.ctx.db, ELY));
    expect(counts).toEqual([{ subscriberId: expect.any(Number), email: "ann@example.org", referred: 2, active: 2 }]);
    const active = server.ctx.db.prepare("SELECT COUNT(*) FROM subscribers WHERE email IN ('erin@example.org', 'fay@example.org') AND status = 'active'").pluck().get();
    expect(active).toBe(2);
  });

  it("a bad code is a validation problem only when it is too long", async () => {
    const res = await server.post("/api/subscribe", { email: "gus@example.org", ...ELY_TOWN, ref: "x".repeat(40) });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("validation_error");
  });
});
