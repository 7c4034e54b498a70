import fs from "node:fs";
import path from "node:path";
import nodemailer from "nodemailer";
import { nodemailerMessage } from "./smtp.ts";
import type { Mailer, OutgoingMessage } from "./types.ts";

/**
 * Without SMTP, every message becomes an `.eml` file in `dir` (open it with any mail client).
 * Written to a temporary name and renamed, so a reader never sees half a message.
 */
export function createOutboxDirMailer(dir: string, dkim?: { domainName: string; keySelector: string; privateKey: string }): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  let seq = 0;
  return {
    async send(message: OutgoingMessage) {
      const info = await transport.sendMail(nodemailerMessage(message, dkim));
      fs.mkdirSync(dir, { recursive: true });
      const id = info.messageId.replace(/[<>]/g, "").replace(/[^\w.@-]/g, "_");
      const name = `${new Date().toISOString().replace(/[:.]/g, "-")}-${process.pid}-${seq++}-${id}.eml`;
      const tmp = path.join(dir, `.${name}.tmp`);
      fs.writeFileSync(tmp, info.message as Buffer);
      fs.renameSync(tmp, path.join(dir, name));
      return { messageId: info.messageId };
    },
    async close() {},
  };
}
