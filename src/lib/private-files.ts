import fs from "node:fs";

// DATA_DIR holds the database (readers' addresses, the unsubscribe secret, the OAuth cookie secret and
// signing keys), its backups and the outbox's messages: only the service's own user may read them,
// whatever umask the shell or unit that started it has (022 makes files 0644 and folders 0755).
// Litestream copies the database's modes onto its shadow WAL and the replica (scripts/start.ts).

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Makes `dir` and any missing parent with mode 0700; a folder already there keeps its mode (it may be /var/lib or /tmp). */
export function makePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * Creates `file` empty with mode 0600 unless it exists. SQLite then opens it as it is (it sets a mode
 * only on files it creates), and gives the database's WAL and shared-memory index the same mode.
 */
export function createPrivateFile(file: string): void {
  fs.closeSync(fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_WRONLY, PRIVATE_FILE_MODE));
}

/**
 * Takes the group's and others' access off each of `files` that exists (made under a looser umask
 * before). A file of another owner is left as it is: only its owner may change its mode.
 */
export function keepPrivate(...files: string[]): void {
  for (const file of files) {
    try {
      const { mode, uid } = fs.statSync(file);
      if (mode & 0o077 && (process.getuid === undefined || uid === process.getuid())) fs.chmodSync(file, mode & 0o700);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err; // not there: a WAL not made yet
    }
  }
}
