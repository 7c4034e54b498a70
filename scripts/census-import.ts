/**
 * npm run census:import [-- --year 2023] [--write-csv] [--csv PATH]
 *
 * Fills the ACS 5-year detail fields of every place (median income, home value, rent, tenure,
 * education, commuting, age, vacancy) from the Census Data API, after checking each variable's
 * published label. CENSUS_API_KEY is optional (keyless use is rate-limited per IP; this job makes
 * about twenty calls). --write-csv also regenerates the places CSV with those columns filled.
 */
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config/load.ts";
import { PLACES_CSV } from "../src/config/paths.ts";
import { createLogger } from "../src/lib/log.ts";
import { writePlacesCsv } from "../src/services/places/census-csv.ts";
import { CensusLabelMismatchError, DEFAULT_ACS_YEAR, importCensus } from "../src/services/places/census-import.ts";
import { databaseFile, openDatabase } from "../src/store/db.ts";
import { importPlaces } from "../src/store/places/import-places.ts";

const USAGE = `Usage: npm run census:import -- [--year YYYY] [--write-csv] [--csv PATH]

  --year YYYY   ACS 5-year vintage (default ${DEFAULT_ACS_YEAR}, i.e. ${DEFAULT_ACS_YEAR - 4}-${DEFAULT_ACS_YEAR})
  --write-csv   also rewrite the places CSV with the detail columns filled
  --csv PATH    the CSV --write-csv rewrites (default content/data/us-places.csv)

Environment: CENSUS_API_KEY (optional), CENSUS_API_URL, DATA_DIR, LOG_LEVEL.`;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      year: { type: "string", default: String(DEFAULT_ACS_YEAR) },
      "write-csv": { type: "boolean", default: false },
      csv: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const year = Number(values.year);
  if (!/^\d{4}$/.test(values.year) || year < 2009) {
    console.error(`--year must be an ACS 5-year vintage such as ${DEFAULT_ACS_YEAR}, got "${values.year}"\n\n${USAGE}`);
    return 2;
  }
  if (values.csv && !values["write-csv"]) {
    console.error(`--csv only makes sense with --write-csv\n\n${USAGE}`);
    return 2;
  }

  // pino's JSON lines would drown the summary below, so only warnings unless LOG_LEVEL asks for more.
  const config = loadConfig({ LOG_LEVEL: "warn", ...process.env });
  const log = createLogger(config.logLevel);
  const db = openDatabase(databaseFile(config.dataDir), { replicated: Boolean(config.replica.target) });
  try {
    importPlaces(db, PLACES_CSV); // a fresh data directory gets its places first
    console.log(`Census ACS 5-year ${year - 4}-${year}: ${config.censusApiUrl}${config.censusApiKey ? " (with CENSUS_API_KEY)" : " (no API key)"}`);
    const report = await importCensus({ db, config, log }, { year });
    console.log(`  variables verified:      ${report.variablesVerified} (labels, concepts and tables match)`);
    console.log(`  places in the response:  ${report.placesInResponse}`);
    console.log(`  places updated:          ${report.placesUpdated} (acs_detail_year = ${year})`);
    console.log(`  places not in response:  ${report.placesNotInResponse} (left unchanged)`);
    console.log(`  unmatched GEOIDs:        ${report.unmatched.length}${report.unmatched.length ? ` (${report.unmatched.slice(0, 5).map((u) => `${u.geoid} ${u.name}`).join("; ")}${report.unmatched.length > 5 ? "; ..." : ""})` : ""}`);
    console.log(`  null values:             ${report.nullTotal} (no estimate published)`);
    for (const [field, n] of Object.entries(report.nullValues)) console.log(`    ${field.padEnd(24)}${n}`);
    if (values["write-csv"]) {
      const csv = writePlacesCsv(db, values.csv ?? PLACES_CSV);
      console.log(`  wrote ${csv.file}: ${csv.rowsFilled} of ${csv.rows} rows filled`);
    }
    return 0;
  } catch (err) {
    if (err instanceof CensusLabelMismatchError) console.error(err.message);
    else console.error(`census:import failed: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    db.close();
  }
}

process.exitCode = await main();
