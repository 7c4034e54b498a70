import { parentPort, workerData } from "node:worker_threads";
import { openDatabase } from "../../src/store/db.ts";
import { insertEdition } from "../../src/store/morning/editions.ts";

/**
 * A second process-like writer for the search tests: stores `mornings` mornings of editions, one
 * transaction each (as the morning pipeline does), through its own connection to the database file.
 */
const { file, geoids, mornings, word } = workerData as { file: string; geoids: string[]; mornings: number; word: string };
const db = openDatabase(file);
for (let m = 0; m < mornings; m++) {
  const date = new Date(Date.UTC(2030, 0, 1 + m)).toISOString().slice(0, 10);
  db.transaction(() => {
    for (const geoid of geoids) {
      insertEdition(db, {
        placeGeoid: geoid, date, subject: `Morning ${m}`,
        markdown: `# Morning ${m}\n\nThe ${word} flies over town today. ${"Filler words about the town. ".repeat(40)}`,
        html: "<p>morning</p>", publishedAt: `${date}T11:00:00.000Z`,
      });
    }
  }).immediate();
}
db.close();
parentPort?.postMessage("done");
