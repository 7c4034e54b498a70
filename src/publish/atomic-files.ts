import fs from "node:fs/promises";
import path from "node:path";

/**
 * Writes files under one directory, each atomically: the bytes go to a temporary sibling which is
 * then renamed over the target. A reader sees the old file or the new one, never half of one; and a
 * target hard-linked from a previous site generation gets a new inode instead of being overwritten
 * in place. Up to `concurrency` writes are in flight at once.
 *
 * With `atomic: false` (a generation directory no reader sees yet, into which nothing has been
 * linked) each file is written in place: one open, write and close instead of two names and a rename.
 * `onWrite` sees every file written (the publish's compressed copies).
 */
export class AtomicFileWriter {
  readonly root: string;
  written = 0;
  #inFlight = new Set<Promise<void>>();
  #dirs = new Set<string>();
  #seq = 0;
  #concurrency: number;
  #error: unknown;

  #atomic: boolean;
  #onWrite?: (relPath: string, content: string) => void;

  constructor(root: string, options: { concurrency?: number; atomic?: boolean; onWrite?: (relPath: string, content: string) => void } = {}) {
    this.root = root;
    this.#concurrency = options.concurrency ?? 16;
    this.#atomic = options.atomic ?? true;
    this.#onWrite = options.onWrite;
  }

  /** Queues `relPath` (slash-separated, inside the root); resolves once there is room for another write. */
  async write(relPath: string, content: string): Promise<void> {
    const file = path.resolve(this.root, relPath);
    if (!file.startsWith(path.resolve(this.root) + path.sep)) throw new Error(`refusing to write outside ${this.root}: ${relPath}`);
    while (this.#inFlight.size >= this.#concurrency) await Promise.race(this.#inFlight);
    if (this.#error) throw this.#error;
    this.#onWrite?.(relPath, content);
    // Failures are kept for flush() rather than left as unhandled rejections.
    const job: Promise<void> = this.#writeNow(file, content)
      .catch((err: unknown) => { this.#error ??= err; })
      .finally(() => this.#inFlight.delete(job));
    this.#inFlight.add(job);
  }

  async #writeNow(file: string, content: string): Promise<void> {
    const dir = path.dirname(file);
    if (!this.#dirs.has(dir)) {
      await fs.mkdir(dir, { recursive: true });
      this.#dirs.add(dir);
    }
    if (!this.#atomic) {
      await fs.writeFile(file, content);
      this.written++;
      return;
    }
    const tmp = `${file}.${process.pid}.${++this.#seq}.tmp`;
    try {
      await fs.writeFile(tmp, content);
      await fs.rename(tmp, file);
    } catch (err) {
      await fs.rm(tmp, { force: true });
      throw err;
    }
    this.written++;
  }

  /** Waits for every queued write; rejects with the first failure. */
  async flush(): Promise<void> {
    while (this.#inFlight.size) await Promise.all(this.#inFlight);
    if (this.#error) throw this.#error;
  }
}
