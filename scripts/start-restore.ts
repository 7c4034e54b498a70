// The first step of `npm start` (its `prestart`), before anything opens the database (the site
// build right after does): with REPLICA_URL set and no database in DATA_DIR, the replica's latest
// state is restored, so a new machine (or a lost disk) starts where the old one stopped instead of
// from an empty database. Without REPLICA_URL, or with a database present, it does nothing.
import fs from "node:fs";
import { loadConfig } from "../src/config/load.ts";
import { restoreFromReplica } from "../src/services/platform/replica-restore.ts";
import { databaseFile } from "../src/store/db.ts";

const config = loadConfig();
if (config.replica.target && !fs.existsSync(databaseFile(config.dataDir))) {
  const started = performance.now();
  try {
    const result = await restoreFromReplica(config);
    if (result.restored) console.log(`restored ${result.file} from ${config.replica.url} (changes up to ${result.point?.toISOString() ?? "its latest"}) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    else console.log(`${config.replica.url} holds no database yet: starting with a new one`);
  } catch (err) {
    // Starting on an empty database would replicate it as the newest state: stop instead.
    console.error(`citydaily: DATA_DIR has no database and the restore from ${config.replica.url} failed; not starting. ${(err as Error).message}`);
    process.exit(1);
  }
}
