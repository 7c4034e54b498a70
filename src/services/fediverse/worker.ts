import { sweepExpiredKv } from "../../store/fediverse/kv.ts";
import type { AppContext } from "../platform/context.ts";
import { createFediverse } from "./federation.ts";
import { postDueEditions } from "./posts.ts";
import { sleep } from "../../lib/sleep.ts";

/** How often entries past their TTL are swept from the key-value table. */
const SWEEP_EVERY_MS = 10 * 60_000;

export interface FediverseWorker {
  /** Takes no new task; waits up to `graceMs` for deliveries in flight (those cut are delivered again later). */
  stop(graceMs?: number): Promise<void>;
}

/**
 * The server's fediverse worker, beside the mail sender: posts the editions the morning marked
 * (posts.ts) and drains the delivery queue (fan-outs, then one signed POST per inbox, retried with
 * backoff), `FEDERATION_CONCURRENCY` deliveries at a time.
 */
export function startFediverseWorker(ctx: AppContext): FediverseWorker {
  const fediverse = createFediverse(ctx);
  const stopping = new AbortController();
  const draining = fediverse.federation.startQueue(ctx, { signal: stopping.signal })
    .catch((err) => ctx.log.error({ err }, "the fediverse delivery queue stopped"));
  const posting = (async () => {
    let swept = 0;
    while (!stopping.signal.aborted) {
      let posted = 0;
      try {
        posted = await postDueEditions(ctx, fediverse);
        if (Date.now() - swept > SWEEP_EVERY_MS) {
          sweepExpiredKv(ctx.db, Date.now());
          swept = Date.now();
        }
      } catch (err) {
        ctx.log.error({ err }, "the fediverse worker's step failed; it goes on at the next");
      }
      if (posted === 0) await sleep(ctx.config.federation.pollMs, stopping.signal);
    }
  })();
  return {
    async stop(graceMs = 5000) {
      stopping.abort();
      const grace = new AbortController();
      await Promise.race([Promise.all([draining, posting]), sleep(graceMs, grace.signal)]);
      grace.abort();
    },
  };
}
