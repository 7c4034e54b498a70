import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { SourceError } from "../../src/integrations/http-json.ts";
import { SourceGuard } from "../../src/services/sources/source-guard.ts";

// One provider's manners for a morning run, on a fake clock: 429 windows, Retry-After, the circuit.

const MINUTE = "Minutely API request limit exceeded. Please try again in one minute.";
const HOUR = "Hourly API request limit exceeded. Please try again in the next hour.";

function setup(budgetMs = 300_000) {
  let now = Date.parse("2026-11-24T12:00:00Z");
  const sent: number[] = [];
  const slept: number[] = [];
  const logged: Array<{ msg: string }> = [];
  const stored = new Map<string, string>();
  const make = () => new SourceGuard({
    provider: "Open-Meteo forecast", concurrency: 2, budgetMs, log: pino({ level: "warn" }, { write: (l: string) => void logged.push(JSON.parse(l)) }),
    clock: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
    blockStore: { get: () => stored.get("k"), set: (v) => void stored.set("k", v) },
  });
  const answer = (script: Array<"ok" | "minute" | "hour" | "down" | "busy">) => {
    let i = 0;
    return async () => {
      sent.push(now);
      const what = script[Math.min(i++, script.length - 1)];
      if (what === "minute") throw new SourceError("status", "429", { status: 429, reason: MINUTE });
      if (what === "hour") throw new SourceError("status", "429", { status: 429, reason: HOUR });
      if (what === "down") throw new SourceError("status", "Open-Meteo answered 500", { status: 500 });
      if (what === "busy") throw new SourceError("status", "503", { status: 503, retryAfterMs: 2000 });
      return "forecast";
    };
  };
  return { make, answer, sent, slept, logged, stored, clock: () => now, advance: (ms: number) => (now += ms) };
}

describe("a provider's 429", () => {
  it("for the minute: waits the minute out when the budget allows, sends nothing inside it, then goes on", async () => {
    const t = setup();
    const guard = t.make();
    const request = t.answer(["minute", "ok"]);
    const first = t.clock();
    expect(await guard.call(100, request)).toEqual({ ok: true, value: "forecast" });
    expect(t.sent).toEqual([first, first + 60_000]);
    expect(t.slept).toEqual([60_000]);
    expect(guard.stats).toMatchObject({ requests: 2, locations: 200, rateLimited: 1 });
    expect(t.logged.map((l) => l.msg)).toEqual([expect.stringMatching(/^Open-Meteo forecast answered 429 \(its minute limit\): no request to it until 2026-11-24T12:01:00/)]);
  });

  it("for the minute without the budget to wait: the rest of the run goes without, no request sent", async () => {
    const t = setup(30_000);
    const guard = t.make();
    expect(await guard.call(100, t.answer(["minute"]))).toEqual({ ok: false, why: "blocked" });
    expect(await guard.call(100, t.answer(["ok"]))).toEqual({ ok: false, why: "blocked" });
    expect(t.sent).toHaveLength(1);
    expect(guard.stats).toMatchObject({ requests: 1, rateLimited: 1, skipped: 2, blocked: { window: "minute" } });
  });

  it("for the hour: no request for the hour, in this run or the next, and one after it", async () => {
    const t = setup();
    const guard = t.make();
    expect((await guard.call(100, t.answer(["hour"]))).ok).toBe(false);
    expect((await guard.call(100, t.answer(["ok"]))).ok).toBe(false);
    expect(t.sent).toHaveLength(1);
    expect(t.slept).toEqual([]); // an hour is not waited for
    // The next run, 15 minutes later, remembers the window.
    t.advance(15 * 60_000);
    const next = t.make();
    expect(await next.call(100, t.answer(["ok"]))).toEqual({ ok: false, why: "blocked" });
    expect(t.sent).toHaveLength(1);
    expect(next.stats.blocked).toEqual({ window: "hour", until: "2026-11-24T13:00:00.000Z" });
    // Past the hour, requests go again.
    t.advance(46 * 60_000);
    expect(await t.make().call(100, t.answer(["ok"]))).toEqual({ ok: true, value: "forecast" });
    expect(t.sent).toHaveLength(2);
  });
});

describe("a failing provider", () => {
  it("opens the circuit after 3 failures in a row: the rest of the run sends nothing", async () => {
    const t = setup();
    const guard = t.make();
    const down = t.answer(["down"]);
    for (let i = 0; i < 3; i++) expect(await guard.call(10, down)).toEqual({ ok: false, why: "failed" });
    expect(await guard.call(10, down)).toEqual({ ok: false, why: "circuit" });
    expect(t.sent).toHaveLength(3);
    expect(guard.stats).toMatchObject({ failures: 3, circuitOpen: true, skipped: 1 });
    expect(t.logged.at(-1)?.msg).toBe("Open-Meteo forecast failed 3 times in a row: the rest of this run goes without it");
  });

  it("honours a short Retry-After on 503: waits it out, then asks again", async () => {
    const t = setup();
    const guard = t.make();
    const first = t.clock();
    expect(await guard.call(1, t.answer(["busy", "ok"]))).toEqual({ ok: true, value: "forecast" });
    expect(t.sent).toEqual([first, first + 2000]);
  });
});

describe("after waiting out a minute", () => {
  it("one request goes first and the others follow its answer, not a burst into another 429", async () => {
    const t = setup();
    const guard = t.make();
    let limited = true;
    const sentAt: number[] = [];
    const request = async () => {
      sentAt.push(t.clock());
      if (limited) {
        limited = false;
        throw new SourceError("status", "429", { status: 429, reason: MINUTE });
      }
      return "forecast";
    };
    const first = t.clock();
    const results = await Promise.all([guard.call(100, request), guard.call(100, request), guard.call(100, request)]);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(guard.stats).toMatchObject({ rateLimited: 1, requests: 4 });
    // Two went before the 429 was known (concurrency 2), then nothing for the minute, then the rest.
    expect(sentAt.filter((at) => at > first && at < first + 60_000)).toEqual([]);
  });
});

describe("the request going first after a wait", () => {
  it("answered 429 again: waits another minute itself, the others still behind it, and nothing hangs", async () => {
    const t = setup();
    const guard = t.make();
    // The first two (sent together) are refused, then the one going first after the minute is refused again.
    let refusals = 3;
    const sentAt: number[] = [];
    const request = async () => {
      sentAt.push(t.clock());
      if (refusals-- > 0) throw new SourceError("status", "429", { status: 429, reason: MINUTE });
      return "forecast";
    };
    const results = await Promise.all([guard.call(100, request), guard.call(100, request), guard.call(100, request)]);
    expect(results.map((r) => r.ok)).toEqual([true, true, true]);
    expect(guard.stats.rateLimited).toBe(3);
    // No request inside a minute after any 429.
    for (const at of sentAt.slice(0, 3)) expect(sentAt.filter((s) => s > at && s < at + 60_000)).toEqual([]);
    expect(sentAt.length).toBe(6); // three refused, then one success for each caller
  });
});

describe("the pause across runs (a source asked once a run)", () => {
  it("leaves the source alone after PAUSE_AFTER failed runs, doubling, honours a long Retry-After, and counts none for a stopped run", async () => {
    const t = setup();
    let state: { failures: number; openUntil: string | null } | undefined;
    const recorded: Array<{ failures: number; openUntil: string | null }> = [];
    const run = (at: string, stop?: AbortSignal) => new SourceGuard({
      provider: "USGS earthquakes", concurrency: 1, budgetMs: 60_000, log: pino({ level: "silent" }), clock: t.clock, signal: stop,
      pause: { now: new Date(at), state, failed: (f) => { recorded.push({ failures: f.failures, openUntil: f.openUntil }); state = { failures: f.failures, openUntil: f.openUntil }; } },
    });
    const down = t.answer(["down"]);
    for (const at of ["2026-11-24T12:00:00Z", "2026-11-24T12:15:00Z"]) expect(await run(at).call(0, down)).toEqual({ ok: false, why: "failed" });
    expect(recorded).toEqual([{ failures: 1, openUntil: null }, { failures: 2, openUntil: null }]);
    // The third failure in a row opens the pause: 15 minutes; the fourth doubles it.
    await run("2026-11-24T12:30:00Z").call(0, down);
    expect(recorded.at(-1)).toEqual({ failures: 3, openUntil: "2026-11-24T12:45:00.000Z" });
    const paused = run("2026-11-24T12:44:00Z");
    expect(await paused.call(0, down)).toEqual({ ok: false, why: "paused" });
    expect(paused.stats).toMatchObject({ requests: 0, skipped: 1 });
    await run("2026-11-24T12:45:00Z").call(0, down);
    expect(recorded.at(-1)).toEqual({ failures: 4, openUntil: "2026-11-24T13:15:00.000Z" });
    // A Retry-After longer than the pause keeps it away as long (a day at most).
    state = { failures: 0, openUntil: null };
    await run("2026-11-24T14:00:00Z").call(0, async () => { throw new SourceError("status", "503", { status: 503, retryAfterMs: 3 * 86_400_000 }); });
    expect(recorded.at(-1)).toEqual({ failures: 1, openUntil: "2026-11-25T14:00:00.000Z" });
    // A run stopped mid-request says nothing about the source.
    state = { failures: 0, openUntil: null };
    const stop = new AbortController();
    const before = recorded.length;
    const stopped = run("2026-11-26T12:00:00Z", stop.signal).call(0, async () => {
      stop.abort();
      throw new SourceError("aborted", "stopped");
    });
    expect(await stopped).toEqual({ ok: false, why: "stopped" });
    expect(recorded).toHaveLength(before);
  });
});
