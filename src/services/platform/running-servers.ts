import fs from "node:fs";
import path from "node:path";
import { processAlive } from "../../lib/process-alive.ts";

// While it runs, a server records itself in DATA_DIR/servers/<pid>.json (where it listens and the
// base URL it serves) and removes the record when it stops. Commands that change what it serves or
// point a person at it read them: a morning dated ahead of the clock refuses to publish into its site,
// the demo says "Open ..." rather than "Now run npm start". A pid names exactly the servers of this
// DATA_DIR, where a port or BASE_URL could belong to another one; a record whose process is gone (a
// crash, kill -9) is ignored and removed.

export interface ServerRecord {
  pid: number;
  /** Where it listens (`http://127.0.0.1:4321`). */
  url: string;
  /** The address its pages link to (BASE_URL). */
  baseUrl: string;
  startedAt: string;
}

const recordsDir = (dataDir: string) => path.join(dataDir, "servers");

/** Writes this process's record; the returned function removes it (at shutdown). */
export function recordRunningServer(dataDir: string, record: Omit<ServerRecord, "pid">): () => void {
  const file = path.join(recordsDir(dataDir), `${process.pid}.json`);
  fs.mkdirSync(recordsDir(dataDir), { recursive: true });
  // Whole or not at all: a reader never sees half a record.
  fs.writeFileSync(`${file}.tmp`, JSON.stringify({ pid: process.pid, ...record } satisfies ServerRecord));
  fs.renameSync(`${file}.tmp`, file);
  return () => fs.rmSync(file, { force: true });
}

/** The servers running on `dataDir` now; records of processes that are gone are removed. */
export function runningServers(dataDir: string): ServerRecord[] {
  let names: string[];
  try {
    names = fs.readdirSync(recordsDir(dataDir)).filter((n) => /^\d+\.json$/.test(n));
  } catch {
    return [];
  }
  const out: ServerRecord[] = [];
  for (const name of names) {
    const file = path.join(recordsDir(dataDir), name);
    let record: ServerRecord;
    try {
      record = JSON.parse(fs.readFileSync(file, "utf8")) as ServerRecord;
    } catch {
      continue; // being written, or removed meanwhile
    }
    if (processAlive(record.pid)) out.push(record);
    else fs.rmSync(file, { force: true });
  }
  return out;
}
