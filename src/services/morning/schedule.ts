import type { AppContext } from "../platform/context.ts";
import { runMorning } from "./run-morning.ts";
import { lookupTownZones, ZONES_PER_TICK } from "../weather/place-zones.ts";

/** How often the server looks for cities whose morning has come (each run only does what is due). */
export const MORNING_INTERVAL_MS = 15 * 60 * 1000;

export interface MorningSchedule {
  /** Stops the timer and the run in progress (between cities; fetches in flight are aborted), and waits for it. */
  stop(): Promise<void>;
}

/**
 * Runs the morning pipeline every 15 minutes inside the server process. Runs never overlap here; a
 * concurrent `npm run morning` is kept out by the pipeline's own lease.
 */
export function startMorningSchedule(ctx: AppContext, options: { runAtStart?: boolean; intervalMs?: number } = {}): MorningSchedule {
  let running: Promise<void> | undefined;
  // Stopping ends the run between cities and aborts its outside fetches (forecast, feeds, alerts, air quality).
  const stopping = new AbortController();
  const tick = () => {
    if (running || stopping.signal.aborted) return;
    // runMorning logs its own summary line.
    running = runMorning(ctx, { signal: stopping.signal })
      // Outside the morning: a few subscribed towns' NWS zones (once each), for alert matching by zone.
      .then(() => (stopping.signal.aborted ? undefined : lookupTownZones(ctx, { limit: ZONES_PER_TICK, signal: stopping.signal })))
      .then(() => undefined)
      .catch((err) => ctx.log.error({ err }, "scheduled morning run failed"))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, options.intervalMs ?? MORNING_INTERVAL_MS);
  timer.unref();
  if (options.runAtStart) setImmediate(tick);
  return {
    async stop() {
      clearInterval(timer);
      stopping.abort(new Error("the server is stopping"));
      await running;
    },
  };
}
