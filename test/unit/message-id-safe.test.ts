import { describe, expect, it } from "vitest";
import { messageIdSafe } from "../../src/integrations/mail/message-template.ts";

// A digest goes the templated (fast) way only when its Message-ID can be written into the header as
// it is; an IP BASE_URL gives address literals, which must not push every digest the slow way.
describe("messageIdSafe", () => {
  it("takes our Message-IDs on a named host and on address literals", () => {
    for (const id of ["<digest-1@citydaily.example>", "<digest-123@[127.0.0.1]>", "<digest-9@[ipv6:::1]>"]) expect(messageIdSafe(id), id).toBe(true);
  });
  it("refuses anything that would need quoting or could break the header", () => {
    for (const id of ["digest-1@citydaily.example", "<a b@x.example>", "<x@y.example>z", "<x@[1.2.3.4>", "<x@y\r\nBcc: z@y>", "<é@x.example>"]) expect(messageIdSafe(id), id).toBe(false);
  });
});
