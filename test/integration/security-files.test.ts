import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../src/config/paths.ts";
import { freePort, quietEnv, startLikeNpm, type SpawnedServer } from "../helpers/replica-server.ts";
import { startTestServer } from "../helpers/server.ts";
import { TEMPLATE_DB } from "../../scripts/bench/template-db.ts";

// Who may read what the server keeps on disk, as a security tester found it under a umask of 022:
// the data directory, the database and its WAL and index (readers' addresses, the unsubscribe
// secret, the OAuth cookie secret and signing keys), the outbox's messages, backups, and the
// Litestream replica after a real `npm start` with REPLICA_URL=file://. Owner only: folders 0700,
// files 0600. docs/security.md has the table.

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) fs.rmSync(dir, { recursive: true, force: true });
});

const modeOf = (p: string) => (fs.statSync(p).mode & 0o777).toString(8).padStart(4, "0");

/** Every folder and file under `root` (itself included) with its mode, as `ls -l` would show it. */
function modesUnder(root: string): Array<[string, string]> {
  const out: Array<[string, string]> = [[root, modeOf(root)]];
  if (!fs.statSync(root).isDirectory()) return out;
  for (const entry of fs.readdirSync(root, { withFileTypes: true, recursive: true })) {
    const p = path.join(entry.parentPath, entry.name);
    if (!entry.isSymbolicLink()) out.push([p, modeOf(p)]);
  }
  return out;
}

/** What `root` holds that is not owner-only: folders not 0700 and files not 0600. */
function notPrivate(root: string): string[] {
  return modesUnder(root)
    .filter(([p, mode]) => mode !== (fs.statSync(p).isDirectory() ? "0700" : "0600"))
    .map(([p, mode]) => `${mode} ${path.relative(path.dirname(root), p)}`);
}

const waitFor = async (what: string, ready: () => boolean, ms = 30_000) => {
  for (const deadline = Date.now() + ms; !ready(); await new Promise((r) => setTimeout(r, 200))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
};

describe("files on disk are the service user's alone", () => {
  it("npm start under umask 022 with a file:// replica, on a DATA_DIR of 0755 whose database an older version left 0644: the database, WAL and index, outbox messages, a backup, Litestream's files and the replica are 0600 in 0700 folders", async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-modes-"));
    scratch.push(parent);
    // A folder made by hand (or systemd's StateDirectory, 0750): its mode is the operator's, and stays.
    const dataDir = path.join(parent, "data");
    fs.mkdirSync(dataDir);
    fs.chmodSync(dataDir, 0o755);
    const db = path.join(dataDir, "citydaily.db");
    fs.copyFileSync(TEMPLATE_DB, db);
    fs.chmodSync(db, 0o644);
    // Litestream makes the replica's folders.
    const replicaRoot = path.join(parent, "replicas");
    const env = quietEnv(await freePort(), {
      DATA_DIR: dataDir, REPLICA_URL: `file://${path.join(replicaRoot, "citydaily")}`,
      // The sender writes each message to DATA_DIR/outbox (no SMTP_URL).
      MAIL_SENDER: "on", MAIL_SEND_INTERVAL_MS: "200",
    });
    const umask = process.umask(0o022);
    let server: SpawnedServer | undefined;
    try {
      server = await startLikeNpm(env, 240_000);
      const res = await fetch(`${server.url}/api/subscribe`, {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email: "modes@example.org", city: "Boise", state: "Idaho", slug: "boise-idaho" }),
      });
      expect(res.status, await res.clone().text()).toBe(200);
      const outbox = path.join(dataDir, "outbox");
      await waitFor("the welcome email in the outbox", () => fs.existsSync(outbox) && fs.readdirSync(outbox).some((f) => f.endsWith(".eml")));
      // `npm run backup` by hand, beside the running server.
      const backup = spawnSync(process.execPath, [path.join(PROJECT_ROOT, "scripts/backup.ts")], { cwd: PROJECT_ROOT, env, encoding: "utf8", timeout: 120_000 });
      expect(backup.status, `${backup.stdout}${backup.stderr}`).toBe(0);
      const wal = (dir: string) => fs.existsSync(dir) && fs.readdirSync(dir, { recursive: true }).some((f) => String(f).endsWith(".wal.lz4"));
      await waitFor("the replica's WAL segments", () => wal(replicaRoot));

      for (const file of [db, `${db}-wal`, `${db}-shm`]) expect(modeOf(file), file).toBe("0600");
      expect(fs.readdirSync(path.join(dataDir, "backups")).filter((f) => f.endsWith(".db"))).toHaveLength(1);
      // Everything but the public site: the database, outbox, backups, litestream.yml, Litestream's shadow WAL.
      const kept = fs.readdirSync(dataDir).filter((name) => name !== "site").map((name) => path.join(dataDir, name));
      expect(kept.map((p) => path.basename(p))).toEqual(expect.arrayContaining(["citydaily.db", "outbox", "backups", "litestream.yml", ".citydaily.db-litestream"]));
      expect(kept.flatMap(notPrivate)).toEqual([]);
      expect(notPrivate(replicaRoot)).toEqual([]);
    } finally {
      process.umask(umask);
      if (server) {
        server.child.kill("SIGTERM");
        await server.exited;
      }
    }
    // After Litestream's last sync too.
    expect(notPrivate(replicaRoot)).toEqual([]);
  }, 300_000);

  it("a DATA_DIR the server makes (and any folder above it) is 0700, its database 0600, under umask 022", async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-modes-new-"));
    scratch.push(parent);
    const dataDir = path.join(parent, "srv", "data");
    const umask = process.umask(0o022);
    try {
      const server = await startTestServer({ DATA_DIR: dataDir, MAIL_SENDER: "off" });
      try {
        expect((await server.get("/api/status")).status).toBe(200);
        const db = path.join(dataDir, "citydaily.db");
        const modes = Object.fromEntries([path.join(parent, "srv"), dataDir, db, `${db}-wal`, `${db}-shm`].map((p) => [path.relative(parent, p), modeOf(p)]));
        expect(modes).toEqual({ "srv": "0700", "srv/data": "0700", "srv/data/citydaily.db": "0600", "srv/data/citydaily.db-wal": "0600", "srv/data/citydaily.db-shm": "0600" });
      } finally {
        await server.close();
      }
    } finally {
      process.umask(umask);
    }
  }, 120_000);
});
