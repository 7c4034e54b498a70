import type { MessageQueue, MessageQueueDepth, MessageQueueEnqueueOptions, MessageQueueListenOptions } from "@fedify/fedify";
import type { Logger } from "../../lib/log.ts";
import type { DB } from "../../store/db.ts";
import { claimTasks, deleteTask, insertTasks, queueDepth, type QueuedTask } from "../../store/fediverse/queue.ts";

// Fedify's message queue on this database: the morning's posts fan out through it to one delivery
// per inbox, and each failed delivery comes back later with Fedify's backoff (its own retry policy,
// so `nativeRetrial` is false). Only the server's worker listens; any process may enqueue.

export interface QueueOptions {
  /** Tasks handled at once by a listener. */
  concurrency: number;
  /** How often an idle listener looks for due tasks (tasks enqueued in this process wake it at once). */
  pollMs: number;
  /** How long a claimed task is kept from other listeners: past it (its worker crashed), it is due again. */
  claimMs?: number;
  /**
   * Asked before a task is handled: a reason to drop it instead (a delivery to a private address),
   * or undefined to go on.
   */
  refuse?: (message: { type?: string; inbox?: string }) => Promise<string | undefined>;
  /**
   * Headers every delivery carries (a `User-Agent` naming the service): Fedify sends a delivery with
   * the headers its task holds and nothing else, so without them undici's own `node` goes out.
   */
  deliveryHeaders?: () => Record<string, string>;
  log: Logger;
}

const msOf = (d: { total(unit: "millisecond"): number } | undefined) => (d ? Math.max(0, d.total("millisecond")) : 0);

export class SqliteMessageQueue implements MessageQueue {
  readonly nativeRetrial = false;
  readonly #db: DB;
  readonly #options: QueueOptions;
  readonly #wakers = new Set<() => void>();

  constructor(db: DB, options: QueueOptions) {
    this.#db = db;
    this.#options = options;
  }

  async enqueue(message: unknown, options?: MessageQueueEnqueueOptions): Promise<void> {
    await this.enqueueMany([message], options);
  }

  async enqueueMany(messages: readonly unknown[], options?: MessageQueueEnqueueOptions): Promise<void> {
    const delay = msOf(options?.delay);
    insertTasks(this.#db, messages.map((m) => JSON.stringify(m)), Date.now() + delay, options?.orderingKey ?? null);
    if (delay === 0) for (const wake of this.#wakers) wake();
  }

  async getDepth(): Promise<MessageQueueDepth> {
    return queueDepth(this.#db, Date.now());
  }

  /** Claims due tasks while there is room, runs up to `concurrency` at once, and sleeps when there is nothing to do. */
  async listen(handler: (message: unknown) => Promise<void> | void, options?: MessageQueueListenOptions): Promise<void> {
    const { concurrency, pollMs, claimMs = 10 * 60_000 } = this.#options;
    const signal = options?.signal;
    const inFlight = new Set<Promise<void>>();
    while (!signal?.aborted) {
      const room = concurrency - inFlight.size;
      const now = Date.now();
      const tasks = room > 0 ? this.#claim(room, now, now + claimMs) : [];
      for (const task of tasks) {
        const running: Promise<void> = this.#run(handler, task).finally(() => inFlight.delete(running));
        inFlight.add(running);
      }
      if (inFlight.size >= concurrency) await Promise.race(inFlight);
      else if (tasks.length === 0) await this.#idle(pollMs, signal, inFlight);
    }
    await Promise.allSettled(inFlight);
  }

  /** Due tasks, or none when the database cannot be read or written now (a full disk): asked again at the next poll. */
  #claim(limit: number, now: number, until: number): QueuedTask[] {
    try {
      return claimTasks(this.#db, limit, now, until);
    } catch (err) {
      this.#options.log.error({ err }, "the fediverse queue could not be read; it is asked again at the next poll");
      return [];
    }
  }

  /** Waits for the poll interval, a task enqueued here, a task finishing (it may have enqueued more) or the stop. */
  #idle(pollMs: number, signal: AbortSignal | undefined, inFlight: Set<Promise<void>>): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wakers.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, pollMs);
      this.#wakers.add(done);
      signal?.addEventListener("abort", done, { once: true });
      for (const p of inFlight) void p.then(done, done);
    });
  }

  async #run(handler: (message: unknown) => Promise<void> | void, task: QueuedTask): Promise<void> {
    const { log, refuse, deliveryHeaders } = this.#options;
    try {
      const message = JSON.parse(task.message) as { type?: string; inbox?: string; headers?: Record<string, string> };
      if (message.type === "outbox" && deliveryHeaders) message.headers = { ...deliveryHeaders(), ...message.headers };
      const refused = refuse ? await refuse(message) : undefined;
      if (refused) log.warn({ inbox: message.inbox, reason: refused }, "fediverse delivery dropped");
      else await handler(message);
      deleteTask(this.#db, task.id);
    } catch (err) {
      // Fedify retries failed deliveries itself; an error here is unexpected: the task stays claimed
      // and is taken again when its claim lapses.
      log.error({ err, task: task.id }, "a fediverse queue task failed; it is retried when its claim lapses");
    }
  }
}
