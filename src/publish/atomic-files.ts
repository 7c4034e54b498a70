import path from "node:path";
import { SyncFileWriter } from "./site-dir.ts";

/**
 * Writes files under one directory, each atomically: the bytes go to a temporary sibling which is
 * then renamed over the target. A reader sees the old file or the new one, never half of one; and a
 * target hard-linked from a previous site generation gets a new inode instead of being overwritten
 * in place.
 *
 * With `atomic: false` (a generation directory no reader sees yet, into which nothing has been
 * linked) each file is written in place: one open, write and close instead of two names and a rename.
 * `onWrite` sees every file written (the publish's compressed copies).
 *
 * Writes are synchronous (a profile of the morning had more CPU in fs/promises' file handles and
 * thread-pool round trips than in the writes themselves), but the writer yields to the event loop
 * every few milliseconds, so a server publishing in-process keeps answering requests.
 */
export class AtomicFileWriter {
  readonly root: string;
  written = 0;
  #files: SyncFileWriter;
  #onWrite?: (relPath: string, content: string | Buffer) => void;
  #sliceStarted = performance.now();

  constructor(root: string, options: { atomic?: boolean; onWrite?: (relPath: string, content: string | Buffer) => void; retireTo?: string } = {}) {
    this.root = root;
    this.#files = new SyncFileWriter({ atomic: options.atomic ?? true, retireTo: options.retireTo });
    this.#onWrite = options.onWrite;
  }

  /** Writes `relPath` (slash-separated, inside the root). */
  async write(relPath: string, content: string | Buffer): Promise<void> {
    const file = path.resolve(this.root, relPath);
    if (!file.startsWith(path.resolve(this.root) + path.sep)) throw new Error(`refusing to write outside ${this.root}: ${relPath}`);
    if (performance.now() - this.#sliceStarted > 8) {
      await new Promise((resolve) => setImmediate(resolve));
      this.#sliceStarted = performance.now();
    }
    this.#files.write(file, content);
    this.written++;
    this.#onWrite?.(relPath, content);
  }
}
