import { describe, expect, it } from "vitest";
import { toSendError } from "../../src/integrations/mail/smtp.ts";

/** nodemailer's errors as SMTPConnection makes them: the reply, its code, and the command answered. */
const smtp = (command: string, response?: string, code = "EENVELOPE", message = "failed") =>
  Object.assign(new Error(response ? `${message}: ${response}` : message), {
    code, command, ...(response ? { response, responseCode: Number(response.slice(0, 3)), permanent: Number(response.slice(0, 3)) >= 500 } : {}),
  });

describe("what an SMTP failure is about", () => {
  it.each([
    ["550 5.1.1 no such mailbox at RCPT TO", smtp("RCPT TO", "550 5.1.1 <a@example.org>: no such mailbox"), "recipient", true, true],
    ["550 without an enhanced code at RCPT TO", smtp("RCPT TO", "550 mailbox unavailable"), "recipient", true, true],
    // RFC 5321 4.5.3.1.10 and RFC 3463: a full mailbox is temporary, retried, never a bounce.
    ["552 5.2.2 mailbox full at RCPT TO", smtp("RCPT TO", "552 5.2.2 mailbox full"), "recipient", false, false],
    ["a bare 552 at RCPT TO", smtp("RCPT TO", "552 Requested mail action aborted: exceeded storage allocation"), "recipient", false, false],
    ["552 with 4.2.2 at RCPT TO", smtp("RCPT TO", "552 4.2.2 over quota"), "recipient", false, false],
    ["452 at RCPT TO (later, this row only)", smtp("RCPT TO", "452 4.2.2 mailbox full"), "recipient", false, false],
    ["450 4.7.1 greylisted at RCPT TO (later, this row only)", smtp("RCPT TO", "450 4.7.1 greylisted, try again later"), "recipient", false, false],
    ["a bare 451 at RCPT TO (later, this row only)", smtp("RCPT TO", "451 try again later"), "recipient", false, false],
    // The relay's system (X.3) or network (X.4): it pauses the sender, no attempt counted.
    ["451 4.3.0 at RCPT TO", smtp("RCPT TO", "451 4.3.0 try later"), "session", false, false],
    ["452 4.3.1 insufficient system storage at RCPT TO", smtp("RCPT TO", "452 4.3.1 Insufficient system storage"), "session", false, false],
    ["451 4.4.1 no answer from host at RCPT TO", smtp("RCPT TO", "451 4.4.1 No answer from host"), "session", false, false],
    ["421 at RCPT TO", smtp("RCPT TO", "421 closing connection"), "session", false, false],
    ["553 5.3.4 at RCPT TO", smtp("RCPT TO", "553 5.3.4 message too big for system"), "session", true, false],
    ["554 5.7.1 relay access denied at RCPT TO", smtp("RCPT TO", "554 5.7.1 <a@example.org>: Relay access denied"), "session", true, false],
    ["550 5.7.1 policy at RCPT TO", smtp("RCPT TO", "550 5.7.1 rejected by policy"), "session", true, false],
    ["550 relaying denied, no enhanced code, at RCPT TO", smtp("RCPT TO", "550 relaying denied"), "session", true, false],
    ["554 without an enhanced code at RCPT TO", smtp("RCPT TO", "554 transaction failed"), "session", true, false],
    ["554 relay access denied at MAIL FROM", smtp("MAIL FROM", "554 5.7.1 relay access denied"), "session", true, false],
    ["535 at AUTH", smtp("AUTH PLAIN", "535 5.7.8 authentication failed", "EAUTH"), "session", true, false],
    ["554 greeting", smtp("CONN", "554 5.7.1 client host blocked", "EPROTOCOL"), "session", true, false],
    ["a refused connection", Object.assign(new Error("connect ECONNREFUSED"), { code: "ESOCKET", command: "CONN" }), "session", false, false],
    ["554 after DATA", smtp("DATA", "554 5.6.0 message refused", "EMESSAGE"), "message", true, false],
    ["an invalid recipient refused by the client", smtp("API", undefined, "EENVELOPE", "Invalid recipient \"x\""), "local", false, false],
    ["missing credentials (configuration)", smtp("API", undefined, "EAUTH", "Missing credentials for \"PLAIN\""), "session", false, false],
  ])("%s", (_name, err, scope, permanent, bounce) => {
    const e = toSendError(err);
    expect({ scope: e.scope, permanent: e.permanent, bounce: e.bounce }).toEqual({ scope, permanent, bounce });
  });
});
