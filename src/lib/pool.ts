// The one bounded worker pool: the morning's towns, the census import's variables, the S3 mirror's
// uploads and the mail sender's messages all run through it. A fixed number of workers pull the next
// item in order, so at most `limit` tasks are in flight and none waits behind a slow one.

export interface PoolOptions {
  /** Checked before each item: once aborted, no new item starts (those in flight finish). */
  signal?: AbortSignal;
  /** Checked before each item too: the caller's own reason to stop (a relay's fault, a failed write). */
  stop?: () => boolean;
}

/**
 * Runs `task` over `items` with at most `limit` in flight. The first task that throws stops new work;
 * its error is thrown once the tasks in flight have ended, so nothing is left running behind it.
 */
export async function eachLimited<T>(items: readonly T[], limit: number, task: (item: T, index: number) => Promise<void>, options: PoolOptions = {}): Promise<void> {
  let next = 0;
  let failed: { err: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && !failed && !options.signal?.aborted && !options.stop?.()) {
      const i = next++;
      try {
        await task(items[i]!, i);
      } catch (err) {
        failed ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(0, Math.min(limit, items.length)) }, worker));
  if (failed) throw failed.err;
}

/** `eachLimited` that keeps each task's result, in the order of `items`. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, task: (item: T, index: number) => Promise<R>, options: PoolOptions = {}): Promise<R[]> {
  const results: R[] = new Array(items.length);
  await eachLimited(items, limit, async (item, i) => { results[i] = await task(item, i); }, options);
  return results;
}
