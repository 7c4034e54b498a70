import type { parseConnectionUrl } from "nodemailer/lib/shared";
import SMTPConnection from "nodemailer/lib/smtp-connection";
import { withQuickDataStream } from "./smtp-data-stream.ts";

// One connection of the raw pool (smtp-raw-pool.ts): opened, greeted and logged in within a bound,
// and noticed when it ends.

export interface Conn {
  smtp: SMTPConnection;
  sent: number;
  alive: boolean;
  /** Fails the send in flight on this connection, if any (the connection ended, or close()). */
  cut?: (err: Error) => void;
}

export interface ConnectionSettings {
  /** SMTP_URL's settings (host, port, secure, auth...) less `service`. */
  fromUrl: Omit<ReturnType<typeof parseConnectionUrl>, "service">;
  timeouts: { connectionTimeout: number; greetingTimeout: number; socketTimeout: number };
  /** The longest wait for a connection: connect, greeting and AUTH. */
  waitBound: number;
}

export const closedError = () => Object.assign(new Error("mailer closed"), { code: "ECLOSED" });

/**
 * Opens a connection (and logs in, when SMTP_URL has credentials). It is in `connecting` until it is
 * ready or failed, so that close() can end it; `closed` tells whether an end was the pool's own.
 */
export function connect(settings: ConnectionSettings, connecting: Set<SMTPConnection>, closed: () => boolean): Promise<Conn> {
  const { fromUrl, timeouts, waitBound } = settings;
  return new Promise<Conn>((resolve, reject) => {
    const smtp = withQuickDataStream(new SMTPConnection({ ...fromUrl, ...timeouts } as ConstructorParameters<typeof SMTPConnection>[0]));
    const conn: Conn = { smtp, sent: 0, alive: false };
    let settled = false;
    connecting.add(smtp);
    // AUTH has no timeout of its own in SMTPConnection: bound the whole opening.
    const bound = setTimeout(() => fail(Object.assign(new Error("connection not ready in time"), { code: "ETIMEDOUT" })), waitBound);
    // SMTPConnection reports a failed connect (refused, timeout, TLS) as an 'error' event, not through connect's callback.
    const fail = (err: unknown) => {
      conn.alive = false;
      if (settled) return;
      settled = true;
      connecting.delete(smtp);
      clearTimeout(bound);
      smtp.close();
      reject(err);
    };
    smtp.on("error", fail);
    smtp.on("end", () => {
      const err = Object.assign(new Error(closed() ? "mailer closed" : "connection closed"), { code: closed() ? "ECLOSED" : "ECONNECTION" });
      fail(err);
      conn.cut?.(err);
    });
    smtp.connect((err) => {
      if (err) return fail(err);
      const ready = () => {
        if (settled) return;
        settled = true;
        connecting.delete(smtp);
        clearTimeout(bound);
        conn.alive = true;
        resolve(conn);
      };
      if (!fromUrl.auth) return ready();
      smtp.login(fromUrl.auth, (e) => (e ? fail(e) : ready()));
    });
  });
}
