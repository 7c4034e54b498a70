import fs from "node:fs";
import path from "node:path";
import nodemailer from "nodemailer";
import { nodemailerMessage, nodemailerRaw } from "./smtp.ts";
import type { Mailer, OutgoingMessage, RawMessage } from "./types.ts";

/**
 * Without SMTP, every message becomes an `.eml` file in `dir` (open it with any mail client).
 * Written to a temporary name and renamed, so a reader never sees half a message.
 */
export function createOutboxDirMailer(dir: string, dkim?: { domainName: string; keySelector: string; privateKey: string }): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  let seq = 0;
  const write = (messageId: string, message: Buffer) => {
    fs.mkdirSync(dir, { recursive: true });
    const id = messageId.replace(/[<>]/g, "").replace(/[^\w.@-]/g, "_");
    const name = `${new Date().toISOString().replace(/[:.]/g, "-")}-${process.pid}-${seq++}-${id}.eml`;
    const tmp = path.join(dir, `.${name}.tmp`);
    fs.writeFileSync(tmp, message);
    fs.renameSync(tmp, path.join(dir, name));
    return { messageId };
  };
  return {
    async send(message: OutgoingMessage) {
      const info = await transport.sendMail(nodemailerMessage(message, dkim));
      return write(info.messageId, info.message as Buffer);
    },
    async sendRaw(message: RawMessage) {
      const info = await transport.sendMail(nodemailerRaw(message, dkim));
      return write(message.messageId, info.message as Buffer);
    },
    async close() {},
  };
}
