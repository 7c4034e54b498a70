import { expect } from "vitest";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { startOpenMeteoServer, type OpenMeteoServer } from "../helpers/open-meteo-server.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";

// The setting of the interface-spec tests (test/contract/interface-spec-*.test.ts): the real server
// with real SQLite and SMTP, the recorded Open-Meteo stand-in, one town with a reader, and one
// morning run (when asked), so that every read the spec documents has something to answer.

/** 14:00 UTC: 07:00 in Boise, past its 5 o'clock publication; 04:00 in Honolulu, before it. */
export const NOW = "2026-11-22T14:00:00.000Z";
export const TODAY = NOW.slice(0, 10);
export const TOWN = { slug: "boise-idaho", city: "Boise", state: "Idaho" } as const;
/** A town with a reader whose morning has not come yet: today's edition is `edition_not_found`. */
export const EARLY_TOWN = "honolulu-hawaii";

export interface SpecServer {
  server: TestServer;
  sink: SmtpSink;
  meteo: OpenMeteoServer;
  stop: () => Promise<void>;
}

export async function startSpecServer(opts: { morning: boolean }): Promise<SpecServer> {
  const sink = await new SmtpSink().start();
  const meteo = await startOpenMeteoServer({ today: TODAY });
  const server = await startTestServer({
    SMTP_URL: sink.url, MAIL_SENDER: "off", NOW, SUBSCRIBE_RATE_LIMIT: "1000", OPEN_METEO_URL: meteo.url, WEATHER_TIMEOUT_MS: "2000",
    POSTAL_ADDRESS: "citydaily, 100 Main St, Springfield, IL 62701", PUBLISH_HOUR: "5",
  });
  addSubscriber(server.ctx.db, TOWN.slug, "reader@example.org");
  if (opts.morning) {
    addSubscriber(server.ctx.db, EARLY_TOWN, "reader@example.org");
    expect(await runMorning(server.ctx)).toMatchObject({ composed: 1, skipped: 1, published: 1, failed: 0 });
  }
  return {
    server, sink, meteo,
    stop: async () => {
      await server.stop();
      await meteo.close();
      await sink.stop();
    },
  };
}

/** Section 7's Problem, checked whole: every required field, its rules, `issues` only on validation. */
export async function expectProblem(res: Response, status: number, code: string, path?: string): Promise<Record<string, any>> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  expect(res.headers.get("api-version")).toBeTruthy();
  const p = (await res.json()) as Record<string, any>;
  expect(p).toMatchObject({ code, status, type: expect.stringMatching(new RegExp(`/developers#error-${code}$`)) });
  for (const k of ["title", "detail", "resolution", "documentation", "error"]) expect(typeof p[k], k).toBe("string");
  expect(p.error).toBe(p.detail);
  expect(() => new URL(p.type)).not.toThrow();
  expect(() => new URL(p.documentation)).not.toThrow();
  if (path !== undefined) expect(p.instance).toBe(path);
  if (code === "validation_error") {
    expect(Array.isArray(p.issues)).toBe(true);
    for (const i of p.issues) expect(i).toEqual({ path: expect.any(String), message: expect.any(String) });
  } else {
    expect(p.issues).toBeUndefined();
  }
  return p;
}

/** A JSON body, after checking the status, the JSON content type and section 9's API-Version header. */
export async function jsonOf(res: Response, status = 200): Promise<Record<string, any>> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(res.headers.get("api-version")).toBe("v1");
  return (await res.json()) as Record<string, any>;
}

/**
 * Checks `obj` against one of section 2's field tables: `"integer"`, `"number|null"`, `"array"`...;
 * a trailing `?` marks a field the table does not mark R (it may be absent). Other fields are allowed
 * (section 9: clients tolerate unknown fields).
 */
export function expectFields(obj: unknown, fields: Record<string, string>, what = "object"): void {
  expect(obj !== null && typeof obj === "object" && !Array.isArray(obj), `${what} is an object`).toBe(true);
  const o = obj as Record<string, unknown>;
  for (const [name, spec] of Object.entries(fields)) {
    const types = spec.replace(/\?$/, "").split("|");
    if (!(name in o)) {
      expect(spec.endsWith("?"), `${what}.${name} is required`).toBe(true);
      continue;
    }
    expect(types.some((t) => isType(o[name], t)), `${what}.${name} is ${spec}, got ${JSON.stringify(o[name])}`).toBe(true);
  }
}

function isType(v: unknown, t: string): boolean {
  if (t === "null") return v === null;
  if (t === "integer") return Number.isInteger(v);
  if (t === "array") return Array.isArray(v);
  if (t === "object") return v !== null && typeof v === "object" && !Array.isArray(v);
  if (t === "date") return typeof v === "string" && /^\d{4}-\d{2}-\d{2}$/.test(v);
  return typeof v === t;
}
