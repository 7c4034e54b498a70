import { blockedUntil, rateWindowOf, type RateWindow } from "../../core/sources/rate-windows.ts";
import { SourceError } from "../../integrations/http-json.ts";
import type { Logger } from "../../lib/log.ts";
import { semaphore, type Semaphore } from "../../lib/semaphore.ts";
import { sleep } from "../../lib/sleep.ts";

// One outside source's manners for one morning run (services/sources/run-sources.ts): at most `concurrency`
// requests in flight, a time budget for the whole run, a circuit breaker (after `failureThreshold`
// failures in a row the rest of the run does without the source), 429s obeyed (no request inside the
// window the provider names, waited out when the budget allows a minute's wait, remembered across
// runs), `Retry-After` honoured on 503, and the figures for the morning's summary line.

/** One provider's line in the morning summary. */
export interface ProviderStats {
  /** "Open-Meteo forecast", "Open-Meteo air quality", "NWS alerts". */
  provider: string;
  requests: number;
  /** Locations asked, all requests together (Open-Meteo counts each as one call). */
  locations: number;
  /** Grains answered from this morning's stored snapshot (a run after a crash), without a request. */
  reused: number;
  /** 304 answers to conditional requests. */
  notModified: number;
  /** 429 answers. */
  rateLimited: number;
  /** Requests that failed otherwise (timeout, network, 5xx, unreadable answer). */
  failures: number;
  /** Requests not made: circuit open, the provider's window still closed, the budget spent. */
  skipped: number;
  townsServed: number;
  townsWithout: number;
  circuitOpen: boolean;
  /** Set while a 429's window is closed: which one, and until when (ISO). */
  blocked?: { window: RateWindow; until: string };
  ms: number;
}

export interface GuardOptions {
  provider: string;
  concurrency: number;
  /** The run's budget for this source, from its start. */
  budgetMs: number;
  failureThreshold?: number;
  /** The run's stop (SIGTERM). */
  signal?: AbortSignal;
  log: Logger;
  /** Real time, epoch ms (provider windows are real time even when NOW pins the app clock). */
  clock?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Where a 429's window is kept across runs (the `meta` table): read once, written on each 429. */
  blockStore?: { get(): string | undefined; set(value: string): void };
  /** A pause across runs, for a source asked once a run (the hazards' providers). */
  pause?: CrossRunPause;
}

/**
 * A source that failed PAUSE_AFTER requests in a row, run after run, is left alone for PAUSE_BASE_MS,
 * doubling with each further failure up to PAUSE_MAX_MS; a Retry-After (taken as a day at most: a
 * mistaken header must not silence it for days) keeps it away as long. On the app's clock, kept by
 * the caller: `state` as the last runs left it, `failed` records a failure and the pause it opens.
 */
export interface CrossRunPause {
  now: Date;
  state: { failures: number; openUntil: string | null } | undefined;
  failed(failure: { reason: string; failures: number; openUntil: string | null }): void;
}

export type GuardResult<T> = { ok: true; value: T } | { ok: false; why: "circuit" | "blocked" | "paused" | "budget" | "stopped" | "failed" };

export const FAILURE_THRESHOLD = 3;
/** Failed requests in a row, over runs, after which a CrossRunPause leaves the source alone. */
export const PAUSE_AFTER = 3;
export const PAUSE_BASE_MS = 15 * 60_000;
export const PAUSE_MAX_MS = 6 * 3_600_000;
const RETRY_AFTER_MAX_MS = 24 * 3_600_000;
/** Waits per request (a minute's 429, a short Retry-After). */
const MAX_RETRIES = 2;
/** A Retry-After up to this long is waited out (within the budget); a longer one ends the source for the run. */
export const SHORT_RETRY_MS = 5_000;

export class SourceGuard {
  readonly stats: ProviderStats;
  /** Aborts when the run stops or this source's budget is spent: in-flight requests end with it. */
  readonly signal: AbortSignal;
  readonly #o: GuardOptions;
  readonly #clock: () => number;
  readonly #sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly #deadline: number;
  readonly #started = performance.now();
  /** At most `concurrency` requests in flight. */
  readonly #slots: Semaphore;
  #consecutive = 0;
  #blockedUntil = 0;
  #window: RateWindow = "unknown";
  /** After a wait, one request goes first; the others wait for its answer (not a burst into a new 429). */
  #probe: Promise<void> | null = null;
  /** Failures in a row over runs (CrossRunPause). */
  #pauseFailures = 0;

  constructor(options: GuardOptions) {
    this.#o = options;
    this.#clock = options.clock ?? Date.now;
    this.#sleep = options.sleep ?? sleep;
    this.#deadline = this.#clock() + options.budgetMs;
    this.#slots = semaphore(options.concurrency);
    const budget = AbortSignal.timeout(options.budgetMs);
    this.signal = options.signal ? AbortSignal.any([options.signal, budget]) : budget;
    this.stats = {
      provider: options.provider, requests: 0, locations: 0, reused: 0, notModified: 0, rateLimited: 0, failures: 0, skipped: 0,
      townsServed: 0, townsWithout: 0, circuitOpen: false, ms: 0,
    };
    // A window named by an earlier run's 429 that is not over yet keeps this run away too.
    const kept = options.blockStore?.get();
    if (kept) {
      try {
        const { until, window } = JSON.parse(kept) as { until: number; window: RateWindow };
        if (until > this.#clock()) this.#block(window, until, false);
      } catch {
        // unreadable: ignored
      }
    }
  }

  /** Left alone this run by an earlier run's pause (CrossRunPause). */
  get paused(): boolean {
    const until = this.#o.pause?.state?.openUntil;
    return until !== undefined && until !== null && Date.parse(until) > this.#o.pause!.now.getTime();
  }

  /** Records a failure in the pause across runs, and the pause it opens. */
  #pauseAfter(err: unknown): void {
    const pause = this.#o.pause;
    if (!pause) return;
    const failures = (this.#pauseFailures ||= pause.state?.failures ?? 0) + 1;
    this.#pauseFailures = failures;
    const retry = err instanceof SourceError && err.retryAfterMs !== undefined ? Math.min(err.retryAfterMs, RETRY_AFTER_MAX_MS) : 0;
    const wait = Math.max(retry, failures >= PAUSE_AFTER ? Math.min(PAUSE_BASE_MS * 2 ** (failures - PAUSE_AFTER), PAUSE_MAX_MS) : 0);
    const openUntil = wait > 0 ? new Date(pause.now.getTime() + wait).toISOString() : null;
    const reason = err instanceof SourceError ? err.message : `unexpected: ${(err as Error).message}`;
    try {
      pause.failed({ reason, failures, openUntil });
    } catch (storeErr) {
      this.#o.log.error({ err: storeErr, provider: this.#o.provider }, "recording a source's failure failed");
    }
  }

  get blocked(): boolean {
    return this.#blockedUntil > this.#clock();
  }

  #block(window: RateWindow, until: number, persist: boolean): void {
    if (until <= this.#blockedUntil) return;
    this.#blockedUntil = until;
    this.#window = window;
    this.stats.blocked = { window, until: new Date(until).toISOString() };
    if (persist) this.#o.blockStore?.set(JSON.stringify({ window, until }));
    else if (window === "unknown") delete this.stats.blocked; // a 5xx's Retry-After: reported as a failure, not a limit
  }

  /** Time left in the budget, in ms. */
  #left(): number {
    return this.#deadline - this.#clock();
  }

  /**
   * Makes one request (asking `locations` locations) unless the source is out for this run; never
   * rejects. A 429 for a minute, or a Retry-After, is waited out when the budget has room for it.
   */
  call<T>(locations: number, request: (signal: AbortSignal) => Promise<T>): Promise<GuardResult<T>> {
    return this.#call(locations, request, false);
  }

  async #call<T>(locations: number, request: (signal: AbortSignal) => Promise<T>, probe: boolean): Promise<GuardResult<T>> {
    for (let attempt = 0; ; attempt++) {
      if (this.#o.signal?.aborted) return { ok: false, why: "stopped" };
      if (this.paused) return this.#skip("paused");
      if (this.stats.circuitOpen) return this.#skip("circuit");
      if (this.blocked) {
        const wait = this.#blockedUntil - this.#clock();
        // A minute's window (or a short Retry-After) is worth waiting for; an hour's or a day's ends the source for this run.
        if (wait < this.#left() && (this.#window === "minute" || (wait <= SHORT_RETRY_MS && attempt <= MAX_RETRIES))) {
          await this.#sleep(wait, this.signal);
          if (probe) continue; // the request going first tries again itself
          if (this.#probe) await this.#probe;
          else return this.#probeCall(locations, request);
          continue;
        }
        return this.#skip("blocked");
      }
      if (this.#probe && !probe) {
        await this.#probe;
        continue;
      }
      if (this.#left() <= 0 || this.signal.aborted) return this.#skip("budget");
      await this.#slots.acquire();
      // A 429 may have come in while this one waited for a slot.
      if (this.blocked || this.stats.circuitOpen || this.#left() <= 0) {
        this.#slots.release();
        continue;
      }
      this.stats.requests++;
      this.stats.locations += locations;
      try {
        const value = await request(this.signal);
        this.#consecutive = 0;
        return { ok: true, value };
      } catch (err) {
        if (this.#o.signal?.aborted) return { ok: false, why: "stopped" };
        if (err instanceof SourceError && err.kind === "aborted") return this.#skip("budget", false);
        if (err instanceof SourceError && err.status === 429) {
          this.stats.rateLimited++;
          const window = rateWindowOf(err.reason);
          const until = blockedUntil(window, this.#clock(), err.retryAfterMs);
          const first = !this.blocked;
          this.#block(window, until, true);
          if (first) {
            this.#o.log.warn({ provider: this.#o.provider, window, until: new Date(until).toISOString(), reason: err.reason },
              `${this.#o.provider} answered 429 (${window === "unknown" ? "rate limited" : `its ${window} limit`}): no request to it until ${new Date(until).toISOString()}`);
          }
          continue;
        }
        this.stats.failures++;
        this.#pauseAfter(err);
        if (err instanceof SourceError && err.retryAfterMs !== undefined && err.status !== undefined && err.status >= 500) {
          // Honoured: nothing is sent to it before then (waited out when short, else the run goes without it).
          this.#block("unknown", this.#clock() + err.retryAfterMs, false);
          if (err.retryAfterMs <= SHORT_RETRY_MS && attempt < MAX_RETRIES) continue;
        }
        if (++this.#consecutive >= (this.#o.failureThreshold ?? FAILURE_THRESHOLD) && !this.stats.circuitOpen) {
          this.stats.circuitOpen = true;
          this.#o.log.warn({ provider: this.#o.provider, failures: this.#consecutive, reason: (err as Error).message },
            `${this.#o.provider} failed ${this.#consecutive} times in a row: the rest of this run goes without it`);
        }
        return { ok: false, why: "failed" };
      } finally {
        this.#slots.release();
      }
    }
  }

  /** The first request after a wait: the others queue behind its answer. */
  async #probeCall<T>(locations: number, request: (signal: AbortSignal) => Promise<T>): Promise<GuardResult<T>> {
    let done!: () => void;
    this.#probe = new Promise<void>((resolve) => (done = resolve));
    try {
      return await this.#call(locations, request, true);
    } finally {
      this.#probe = null;
      done();
    }
  }

  #skip(why: "circuit" | "blocked" | "paused" | "budget", count = true): GuardResult<never> {
    if (count) this.stats.skipped++;
    return { ok: false, why };
  }

  /** The figures, with the time since the guard was made. */
  finish(): ProviderStats {
    this.stats.ms = Math.round(performance.now() - this.#started);
    return this.stats;
  }
}
