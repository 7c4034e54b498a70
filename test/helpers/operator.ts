import { expect } from "vitest";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import type { TestServer } from "./server.ts";
import type { SmtpSink } from "./smtp-sink.ts";

/** A browser's cookie jar for one site, as far as the desk needs it (name=value pairs). */
export class Jar {
  #cookies = new Map<string, string>();
  take(res: Response): void {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const i = pair.indexOf("=");
      const name = pair.slice(0, i), value = pair.slice(i + 1);
      if (/Max-Age=0/i.test(c)) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.#cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  has(name: string): boolean {
    return this.#cookies.has(name);
  }
}

export const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";

/** GET with the jar's cookies, keeping what the answer sets. */
export async function getWith(jar: Jar, url: string): Promise<Response> {
  const res = await fetch(url, { headers: { Cookie: jar.header() }, redirect: "manual" });
  jar.take(res);
  return res;
}

/** POSTs a form with the jar's cookies, keeping what the answer sets; redirects are not followed. */
export async function postForm(jar: Jar, url: string, fields: Record<string, string>): Promise<Response> {
  const res = await fetch(url, {
    method: "POST", redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: jar.header() },
    body: new URLSearchParams(fields).toString(),
  });
  jar.take(res);
  return res;
}

/** Asks for a sign-in link on /operator as a person would; returns the page answered. */
export async function askForLink(server: TestServer, jar: Jar, email: string): Promise<Response> {
  const page = await getWith(jar, `${server.url}/operator`);
  return postForm(jar, `${server.url}/operator/sign-in`, { csrf: csrfOf(await page.text()), email });
}

/** The newest sign-in link mailed to `email` (the outbox is delivered to the sink first). */
export async function mailedLink(server: TestServer, sink: SmtpSink, email: string): Promise<string> {
  await sendPendingMail(server.ctx);
  const mail = sink.messages.filter((m) => m.to.includes(email) && m.parsed.subject === "Your citydaily sign-in link").at(-1);
  expect(mail, `a sign-in email to ${email}`).toBeDefined();
  return /(https?:\/\/\S+\/operator\/sign-in\/[\w-]+)/.exec(mail!.parsed.text ?? "")![1];
}

/** Uses a sign-in link: opens it, presses Sign in. Returns the POST's answer (303 on success). */
export async function useLink(jar: Jar, link: string): Promise<Response> {
  const page = await getWith(jar, link);
  if (page.status !== 200) return page;
  return postForm(jar, link, { csrf: csrfOf(await page.text()) });
}

/** The whole sign-in: a jar holding the operator's session. */
export async function signIn(server: TestServer, sink: SmtpSink, email: string): Promise<Jar> {
  const jar = new Jar();
  expect((await askForLink(server, jar, email)).status).toBe(200);
  const res = await useLink(jar, await mailedLink(server, sink, email));
  expect(res.status).toBe(303);
  expect(jar.has("cd_operator")).toBe(true);
  return jar;
}
