import type { AppContext } from "./context.ts";
import { runMorning } from "./morning.ts";

/** How often the server looks for cities whose morning has come (each run only does what is due). */
export const MORNING_INTERVAL_MS = 15 * 60 * 1000;

export interface MorningSchedule {
  /** Stops the timer and waits for a run in progress to finish. */
  stop(): Promise<void>;
}

/**
 * Runs the morning pipeline every 15 minutes inside the server process. Runs never overlap here; a
 * concurrent `npm run morning` is kept out by the pipeline's own lease.
 */
export function startMorningSchedule(ctx: AppContext, options: { runAtStart?: boolean; intervalMs?: number } = {}): MorningSchedule {
  let running: Promise<void> | undefined;
  // Stopping cuts the run's outside fetches short (feeds, alerts, air quality): editions go without them.
  const stopping = new AbortController();
  const tick = () => {
    if (running || stopping.signal.aborted) return;
    // runMorning logs its own summary line.
    running = runMorning(ctx, { signal: stopping.signal })
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
      stopping.abort();
      await running;
    },
  };
}
