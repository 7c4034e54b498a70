import type { Config } from "../../config/load.ts";

/**
 * A small client for the Census Data API (https://api.census.gov/data): variable metadata and
 * tables for every place. Requests time out, and network errors, 429 and 5xx are retried with
 * backoff; anything else fails at once with the Census API's own message (it answers an unknown
 * variable with a 400 and a plain-text "error: ...", an invalid key with an HTML page).
 */

export interface VariableMetadata {
  name: string;
  label: string;
  concept?: string;
  group?: string;
  predicateType?: string;
}

/** One row per geography: the requested variables' raw values plus `NAME`, keyed by 7-digit place GEOID. */
export interface PlaceTable {
  rows: Map<string, Record<string, unknown>>;
  requests: number;
}

export interface AcsClientOptions {
  baseUrl: string;
  apiKey?: string;
  timeoutMs?: number;
  /** Extra attempts after the first for retryable failures. */
  retries?: number;
  retryDelayMs?: number;
  /** The API allows 50 variables per call, NAME included. */
  maxVariablesPerRequest?: number;
}

export class CensusApiError extends Error {
  readonly status?: number;
  constructor(message: string, status?: number) {
    super(message);
    this.name = "CensusApiError";
    this.status = status;
  }
}

export interface AcsClient {
  variable(year: number, dataset: string, id: string): Promise<VariableMetadata>;
  places(year: number, dataset: string, ids: readonly string[]): Promise<PlaceTable>;
}

export function acsClientOptions(config: Pick<Config, "censusApiUrl" | "censusApiKey">): AcsClientOptions {
  return { baseUrl: config.censusApiUrl, apiKey: config.censusApiKey };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createAcsClient(options: AcsClientOptions): AcsClient {
  const base = options.baseUrl.replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? 60_000;
  const retries = options.retries ?? 3;
  const retryDelayMs = options.retryDelayMs ?? 1_000;
  const maxVariables = options.maxVariablesPerRequest ?? 50;
  // The key never appears in messages or logs.
  const shown = (url: URL) => url.toString().replace(/([?&]key=)[^&]*/, "$1***");

  async function getJson(url: URL): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      let retryable: string;
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { Accept: "application/json" } });
        const text = await res.text();
        if (res.ok) {
          if (res.status === 204 || text.trim() === "") return [];
          try {
            return JSON.parse(text);
          } catch {
            // An invalid or unactivated key gets a 200 HTML page instead of data.
            const hint = /key/i.test(text) ? " (check CENSUS_API_KEY)" : "";
            throw new CensusApiError(`${shown(url)} did not answer JSON${hint}: ${snippet(text)}`, res.status);
          }
        }
        if (res.status !== 429 && res.status < 500) {
          throw new CensusApiError(`${shown(url)} answered ${res.status}: ${snippet(text)}`, res.status);
        }
        retryable = `HTTP ${res.status}: ${snippet(text)}`;
      } catch (err) {
        if (err instanceof CensusApiError) throw err;
        retryable = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      }
      if (attempt >= retries) throw new CensusApiError(`${shown(url)} failed after ${attempt + 1} attempts: ${retryable}`);
      await sleep(retryDelayMs * 2 ** attempt);
    }
  }

  function endpoint(year: number, dataset: string, path = ""): URL {
    return new URL(`${base}/${year}/${dataset}${path}`);
  }

  return {
    async variable(year, dataset, id) {
      const body = await getJson(endpoint(year, dataset, `/variables/${encodeURIComponent(id)}.json`));
      const meta = body as Partial<VariableMetadata> | null;
      if (!meta || typeof meta !== "object" || typeof meta.label !== "string") {
        throw new CensusApiError(`${year} ${dataset} metadata for ${id} has no label`);
      }
      return { ...meta, name: meta.name ?? id, label: meta.label } as VariableMetadata;
    },

    async places(year, dataset, ids) {
      const rows = new Map<string, Record<string, unknown>>();
      const perCall = maxVariables - 1; // NAME takes one slot
      let requests = 0;
      for (let i = 0; i < ids.length; i += perCall) {
        const chunk = ids.slice(i, i + perCall);
        // Written out rather than via URLSearchParams so the query reads like the API's documentation
        // (`get=NAME,B19013_001E&for=place:*`); variable IDs need no escaping.
        const key = options.apiKey ? `&key=${encodeURIComponent(options.apiKey)}` : "";
        const url = endpoint(year, dataset, `?get=${["NAME", ...chunk].join(",")}&for=place:*${key}`);
        const body = await getJson(url);
        requests++;
        for (const [geoid, row] of tableRows(body, chunk, shown(url))) {
          rows.set(geoid, { ...rows.get(geoid), ...row });
        }
      }
      return { rows, requests };
    },
  };
}

/** The API's array of arrays: header row first, then one row per place with `state` and `place` FIPS last. */
function tableRows(body: unknown, ids: readonly string[], source: string): Array<[string, Record<string, unknown>]> {
  if (!Array.isArray(body)) throw new CensusApiError(`${source} did not answer a JSON array`);
  if (body.length === 0) return [];
  const [header, ...data] = body as unknown[][];
  if (!Array.isArray(header)) throw new CensusApiError(`${source} has no header row`);
  const index = new Map(header.map((h, i) => [String(h), i]));
  const missing = ["NAME", ...ids, "state", "place"].filter((c) => !index.has(c));
  if (missing.length) throw new CensusApiError(`${source} lacks the column(s) ${missing.join(", ")}`);
  const state = index.get("state")!;
  const place = index.get("place")!;
  return data.map((row) => {
    const record: Record<string, unknown> = { NAME: row[index.get("NAME")!] };
    for (const id of ids) record[id] = row[index.get(id)!];
    return [`${row[state]}${row[place]}`, record];
  });
}

function snippet(text: string): string {
  const plain = text.replace(/<[^>]*>/g, " ").replace(/\s+/g, " ").trim();
  return plain.length > 200 ? `${plain.slice(0, 200)}…` : plain || "(empty body)";
}
