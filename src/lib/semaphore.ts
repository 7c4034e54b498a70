/**
 * A counting semaphore: at most `limit` holders at once; the others wait their turn, in order.
 * Called with a task, it runs the task in a slot and frees the slot when the task settles. A caller
 * whose work is not one task (SourceGuard gives its slot back and asks again when a 429 came in
 * while it waited) takes and frees the slot itself with `acquire` and `release`.
 */
export interface Semaphore {
  <T>(task: () => Promise<T>): Promise<T>;
  /** Waits for a free slot and takes it: the caller must `release` it. */
  acquire(): Promise<void>;
  release(): void;
}

export function semaphore(limit: number): Semaphore {
  let active = 0;
  const waiting: Array<() => void> = [];
  const turn = () => new Promise<void>((resolve) => waiting.push(resolve));
  const release = () => {
    active--;
    waiting.shift()?.();
  };
  // A free slot is taken at once, in the caller's own turn: no await before the task starts.
  const run = async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= limit) await turn();
    active++;
    try {
      return await task();
    } finally {
      release();
    }
  };
  const acquire = async () => {
    if (active >= limit) await turn();
    active++;
  };
  return Object.assign(run, { acquire, release });
}
