/**
 * Waits `ms`, or less if `signal` aborts first; never rejects (node:timers/promises' setTimeout
 * rejects on abort, and every caller here only wants to stop waiting).
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
