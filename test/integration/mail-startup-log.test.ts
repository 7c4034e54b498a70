import fs from "node:fs";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createContext } from "../../src/app.ts";
import { loadConfig } from "../../src/config/load.ts";
import { createLogger } from "../../src/lib/log.ts";
import { startMailSender } from "../../src/services/mail/sender.ts";
import { freshDataDir } from "../helpers/server.ts";

/** A destination that keeps every line written to it. */
function lines(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({ write(chunk, _enc, done) { chunks.push(String(chunk)); done(); } });
  return { stream, text: () => chunks.join("") };
}

/** Starts and stops the server's mail sender with this configuration; returns what it logged as JSON lines. */
async function startupLog(env: Record<string, string>): Promise<Array<Record<string, unknown>>> {
  const dataDir = freshDataDir();
  const out = lines();
  const ctx = createContext(loadConfig({ LOG_LEVEL: "info", DATA_DIR: dataDir, MAIL_SENDER: "off", ...env }), createLogger("info", { pretty: false, destination: out.stream }));
  try {
    await startMailSender(ctx).stop();
  } finally {
    ctx.db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return out.text().trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

describe("the mail sender's start-up warnings", () => {
  it("warns when mail goes out over SMTP while BASE_URL is not https (unsubscribe links would not be)", async () => {
    const log = await startupLog({ SMTP_URL: "smtp://127.0.0.1:9", BASE_URL: "http://news.example.org", POSTAL_ADDRESS: "1 Main St, Springfield, IL" });
    const warning = log.find((l) => /BASE_URL is not https/.test(String(l.msg)));
    expect(warning).toMatchObject({ level: 40, baseUrl: "http://news.example.org", service: "citydaily" });
    expect(log.some((l) => /POSTAL_ADDRESS/.test(String(l.msg)))).toBe(false);
  });

  it("says nothing about https when BASE_URL is https, or when no SMTP server is configured", async () => {
    const https = await startupLog({ SMTP_URL: "smtp://127.0.0.1:9", BASE_URL: "https://news.example.org", POSTAL_ADDRESS: "1 Main St, Springfield, IL" });
    expect(https.filter((l) => l.level === 40)).toEqual([]);
    const noSmtp = await startupLog({ BASE_URL: "http://localhost:4321" });
    expect(noSmtp.filter((l) => /BASE_URL/.test(String(l.msg)))).toEqual([]);
  });

  it("warns when the postal address every footer needs is missing", async () => {
    const log = await startupLog({ SMTP_URL: "smtp://127.0.0.1:9", BASE_URL: "https://news.example.org" });
    expect(log.find((l) => /POSTAL_ADDRESS is not set/.test(String(l.msg)))).toMatchObject({ level: 40 });
  });
});

describe("log format", () => {
  it("writes human-readable lines for a terminal and JSON lines otherwise", () => {
    const pretty = lines();
    createLogger("info", { pretty: true, destination: pretty.stream }).warn({ baseUrl: "http://x.example" }, "BASE_URL is not https");
    const text = pretty.text();
    expect(text).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] WARN: BASE_URL is not https baseUrl=http:\/\/x\.example\n$/);
    expect(() => JSON.parse(text)).toThrow();

    const json = lines();
    createLogger("info", { pretty: false, destination: json.stream }).warn({ baseUrl: "http://x.example" }, "BASE_URL is not https");
    expect(JSON.parse(json.text())).toMatchObject({ level: 40, msg: "BASE_URL is not https", baseUrl: "http://x.example", service: "citydaily" });
  });
});
