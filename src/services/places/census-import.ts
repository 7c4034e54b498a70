import { acsClientOptions, CensusApiError, createAcsClient, type AcsClient } from "../../integrations/census/acs-client.ts";
import {
  ACS_VARIABLES,
  expectedText,
  FIELD_RULES,
  normalizeLabel,
  parseCensusValue,
  type AcsDataset,
  type AcsVariable,
  type AcsVariableId,
} from "../../integrations/census/variables.ts";
import { mapLimited } from "../../lib/pool.ts";
import { CENSUS_DETAIL_FIELDS, type CensusDetailKey } from "../../contract/census-fields.ts";
import { countPlaces, updateCensusDetail, type DetailFigures } from "../../store/places/census.ts";
import type { AppContext } from "../platform/context.ts";

/**
 * `npm run census:import`: fetch the ACS 5-year detail fields for every place from the Census Data
 * API, verify that each variable still means what we think it means, derive the Census object's
 * fields and write them (with their vintage) to the places table in one transaction.
 */

export const DEFAULT_ACS_YEAR = 2023;

type DetailField = CensusDetailKey;
const DETAIL_FIELDS: DetailField[] = CENSUS_DETAIL_FIELDS.map((f) => f.key);

export interface LabelMismatch {
  id: string;
  dataset: AcsDataset;
  what: "label" | "concept" | "group" | "missing";
  expected: string;
  actual: string;
}

/** The published metadata disagrees with `variables.ts`: the import stops before any data is fetched. */
export class CensusLabelMismatchError extends Error {
  readonly mismatches: LabelMismatch[];
  constructor(year: number, mismatches: LabelMismatch[]) {
    super(
      `Census variable metadata for ${year} does not match what the importer expects; nothing was changed.\n` +
        mismatches
          .map((m) =>
            m.what === "missing"
              ? `  ${m.id} (${m.dataset}): not published for ${year} (${m.actual})`
              : `  ${m.id} (${m.dataset}): expected ${m.what} "${m.expected}", the Census API publishes "${m.actual}"`,
          )
          .join("\n") +
        "\nFind the variable that now carries the expected label in the vintage's variables.json and update src/integrations/census/variables.ts.",
    );
    this.name = "CensusLabelMismatchError";
    this.mismatches = mismatches;
  }
}

export interface CensusImportReport {
  year: number;
  variablesVerified: number;
  requests: number;
  /** Places in the Census responses. */
  placesInResponse: number;
  /** Places of our database that got this vintage's figures. */
  placesUpdated: number;
  /** Places of our database without a row in the responses (created or renamed after the vintage); left as they were. */
  placesNotInResponse: number;
  /** Places in the responses that our database does not have, by GEOID. */
  unmatched: Array<{ geoid: string; name: string }>;
  /** Per field, how many updated places got null (the Census published no estimate). */
  nullValues: Record<DetailField, number>;
  nullTotal: number;
}

export interface CensusImportOptions {
  year?: number;
  client?: AcsClient;
}

/** Checks every variable's published label, concept and table against `variables.ts`. */
export async function verifyVariables(client: AcsClient, year: number, variables: readonly AcsVariable[] = ACS_VARIABLES): Promise<number> {
  const mismatches = (
    // Four at a time: polite to the API, quicker than one by one.
    await mapLimited(variables, 4, async (variable): Promise<LabelMismatch[]> => {
      const { id, dataset } = variable;
      let meta;
      try {
        meta = await client.variable(year, dataset, id);
      } catch (err) {
        if (err instanceof CensusApiError && err.status === 404) {
          return [{ id, dataset, what: "missing", expected: "", actual: "HTTP 404" }];
        }
        throw err;
      }
      const found: LabelMismatch[] = [];
      const label = expectedText(variable.label, year);
      if (normalizeLabel(meta.label) !== normalizeLabel(label)) found.push({ id, dataset, what: "label", expected: label, actual: meta.label });
      const concept = expectedText(variable.concept, year);
      if (normalizeLabel(meta.concept ?? "") !== normalizeLabel(concept)) {
        found.push({ id, dataset, what: "concept", expected: concept, actual: meta.concept ?? "(none)" });
      }
      if (meta.group !== undefined && meta.group !== variable.group) found.push({ id, dataset, what: "group", expected: variable.group, actual: meta.group });
      return found;
    })
  ).flat();
  if (mismatches.length) throw new CensusLabelMismatchError(year, mismatches);
  return variables.length;
}

/** The Census object's detail fields for one place, from its raw values. */
export function deriveFields(raw: Record<string, unknown>): DetailFigures {
  const value = (id: AcsVariableId) => parseCensusValue(raw[id]);
  const out = {} as DetailFigures;
  for (const rule of FIELD_RULES) {
    const n = rule.derive(value);
    out[rule.field] = n === null ? null : rule.integer ? Math.round(n) : n;
  }
  return out;
}

/** Only what the import needs, so the command-line job can run it without the server's integrations. */
export type CensusImportContext = Pick<AppContext, "db" | "config" | "log">;

export async function importCensus(ctx: CensusImportContext, options: CensusImportOptions = {}): Promise<CensusImportReport> {
  const year = options.year ?? DEFAULT_ACS_YEAR;
  const client = options.client ?? createAcsClient(acsClientOptions(ctx.config));

  const variablesVerified = await verifyVariables(client, year);
  ctx.log.info({ year, variables: variablesVerified }, "census variable labels verified");

  const raw = new Map<string, Record<string, unknown>>();
  let requests = 0;
  for (const dataset of ["acs/acs5", "acs/acs5/profile"] as const) {
    const ids = ACS_VARIABLES.filter((v) => v.dataset === dataset).map((v) => v.id);
    const table = await client.places(year, dataset, ids);
    requests += table.requests;
    for (const [geoid, row] of table.rows) raw.set(geoid, { ...raw.get(geoid), ...row });
    ctx.log.info({ year, dataset, places: table.rows.size }, "census table fetched");
  }
  if (raw.size === 0) throw new CensusApiError(`The Census API returned no places for ${year}; nothing was changed.`);

  const nullValues = Object.fromEntries(DETAIL_FIELDS.map((f) => [f, 0])) as Record<DetailField, number>;
  const derived = new Map<string, DetailFigures>();
  for (const [geoid, row] of raw) derived.set(geoid, deriveFields(row));
  const { updated: placesUpdated, unknown } = updateCensusDetail(ctx.db, String(year), derived, new Date().toISOString());
  const unmatched: CensusImportReport["unmatched"] = unknown.map((geoid) => ({ geoid, name: String(raw.get(geoid)?.NAME ?? "") }));
  const unknownSet = new Set(unknown);
  for (const [geoid, fields] of derived) {
    if (unknownSet.has(geoid)) continue;
    for (const f of DETAIL_FIELDS) if (fields[f] === null) nullValues[f]++;
  }

  const totalPlaces = countPlaces(ctx.db);
  const report: CensusImportReport = {
    year,
    variablesVerified,
    requests,
    placesInResponse: raw.size,
    placesUpdated,
    placesNotInResponse: totalPlaces - placesUpdated,
    unmatched: unmatched.sort((a, b) => a.geoid.localeCompare(b.geoid)),
    nullValues,
    nullTotal: Object.values(nullValues).reduce((a, b) => a + b, 0),
  };
  ctx.log.info({ ...report, unmatched: report.unmatched.length }, "census import done");
  return report;
}
