import fs from "node:fs";
import path from "node:path";
import nodemailer from "nodemailer";
import { makePrivateDir, PRIVATE_FILE_MODE } from "../../lib/private-files.ts";
import { nodemailerMessage, nodemailerRaw } from "./smtp.ts";
import type { Mailer, OutgoingMessage, RawMessage } from "./types.ts";

/**
 * Without SMTP, every message becomes an `.eml` file in `dir` (open it with any mail client).
 * Written to a temporary name and renamed, so a reader never sees half a message. Owner only, like
 * the database: a message holds its reader's address and unsubscribe link.
 */
export function createOutboxDirMailer(dir: string, dkim?: { domainName: string; keySelector: string; privateKey: string }): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  let seq = 0;
  const write = (messageId: string, message: Buffer) => {
    makePrivateDir(dir);
    const id = messageId.replace(/[<>]/g, "").replace(/[^\w.@-]/g, "_");
    const name = `${new Date().toISOString().replace(/[:.]/g, "-")}-${process.pid}-${seq++}-${id}.eml`;
    const tmp = path.join(dir, `.${name}.tmp`);
    fs.writeFileSync(tmp, message, { mode: PRIVATE_FILE_MODE });
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
