import type { AppContext } from "../platform/context.ts";
import { afterListingsChanged, sweepCommerce } from "./listings.ts";

/**
 * One minute's sweep: stores what time changed by the server's now (emails queued in the same
 * transaction) and re-renders the towns whose listings changed. Returns those towns.
 */
export function sweepAndRerender(ctx: AppContext): Set<string> {
  const changed = sweepCommerce(ctx, ctx.config.now());
  if (changed.size) afterListingsChanged(ctx, changed);
  return changed;
}

/**
 * The server's sweep, every COMMERCE_SWEEP_SECONDS (a minute; reads see what time changed at once
 * anyway: they compare with now). `stop` clears it (a sweep is one synchronous transaction).
 */
export function startCommerceSweep(ctx: AppContext, intervalMs: number): { stop: () => void } {
  const tick = () => {
    try {
      sweepAndRerender(ctx);
    } catch (err) {
      // A busy database (the morning's store, a backup) is tried again on the next tick.
      ctx.log.error({ err }, "the commerce sweep failed");
    }
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
