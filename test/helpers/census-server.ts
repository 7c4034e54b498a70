import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

/**
 * A stand-in for api.census.gov on 127.0.0.1, answering from test/fixtures/census the way the
 * Census Data API does. Point the app at it with `CENSUS_API_URL: server.url` (the URL ends in `/data`).
 *
 * - `/data/{year}/{dataset}/variables.json`: the fixture `{dataset}-{year}-variables.json`
 *   (`acs/acs5/profile` -> `acs5-profile-2023-variables.json`), a trimmed copy of the real file.
 * - `/data/{year}/{dataset}/variables/{ID}.json`: that variable's entry with its `name`.
 * - `/data/{year}/{dataset}?get=NAME,...&for=place:*[&key=...]`: the requested columns of
 *   `{dataset}-{year}-place.json`, header row first, `state` and `place` last, one row per line.
 *   The figures are made up for a handful of real places; the format (strings, sentinels such as
 *   -666666666, nulls) is the API's.
 * - Errors as the API gives them: an unknown variable or more than 50 is a 400 with a plain-text
 *   `error: ...`, an unknown path a 404 HTML page, a key other than `validKey` an HTML "Invalid Key" page.
 */

export const CENSUS_FIXTURE_DIR = path.resolve(import.meta.dirname, "../fixtures/census");

export interface CensusServerOptions {
  /** Published labels to replace, by variable ID (e.g. to simulate a renumbered profile). */
  labels?: Record<string, string>;
  /** The next N data requests answer 503 (the API's "temporarily unavailable"). */
  failDataRequests?: number;
  /** When set, any other `key` gets the Invalid Key page. */
  validKey?: string;
}

export interface CensusServer {
  /** Base URL to use as `CENSUS_API_URL`. */
  url: string;
  /** Every request's path and query, in order. */
  readonly requests: URL[];
  /** Only the data (`get=`) requests. */
  readonly dataRequests: URL[];
  configure(options: CensusServerOptions): void;
  close(): Promise<void>;
}

interface VariablesFile {
  variables: Record<string, Record<string, unknown>>;
}

function fixtureName(dataset: string, year: string, kind: "variables" | "place"): string {
  return path.join(CENSUS_FIXTURE_DIR, `${dataset.replace(/^acs\//, "").replaceAll("/", "-")}-${year}-${kind}.json`);
}

function readFixture<T>(file: string): T | undefined {
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as T) : undefined;
}

const NOT_FOUND_PAGE =
  '<!doctype html><html lang="en"><head><title>HTTP Status 404 – Not Found</title></head><body><h1>HTTP Status 404 – Not Found</h1></body></html>';
const INVALID_KEY_PAGE =
  "<html><head><title>Invalid Key</title></head><body><h1>Invalid Key</h1><p>A valid <em>key</em> must be included with each data API request. You included a key with this request, however, it is not valid.</p></body></html>";

export async function startCensusServer(initial: CensusServerOptions = {}): Promise<CensusServer> {
  let options: CensusServerOptions = { ...initial };
  let failuresLeft = options.failDataRequests ?? 0;
  const requests: URL[] = [];
  const dataRequests: URL[] = [];

  const send = (res: http.ServerResponse, status: number, type: string, body: string) => {
    res.writeHead(status, { "Content-Type": type, "Content-Length": Buffer.byteLength(body) });
    res.end(body);
  };
  const json = (res: http.ServerResponse, body: string) => send(res, 200, "application/json;charset=utf-8", body);
  const text = (res: http.ServerResponse, status: number, body: string) => send(res, status, "text/plain;charset=utf-8", body);
  const html = (res: http.ServerResponse, status: number, body: string) => send(res, status, "text/html;charset=utf-8", body);

  const variablesOf = (dataset: string, year: string): VariablesFile | undefined => {
    const file = readFixture<VariablesFile>(fixtureName(dataset, year, "variables"));
    if (!file) return undefined;
    for (const [id, label] of Object.entries(options.labels ?? {})) {
      if (file.variables[id]) file.variables[id] = { ...file.variables[id], label };
    }
    return file;
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    requests.push(url);
    const m = /^\/data\/(\d{4})\/(acs\/acs5(?:\/profile)?)(\/variables\.json|\/variables\/([^/]+)\.json)?$/.exec(url.pathname);
    if (req.method !== "GET" || !m) return html(res, 404, NOT_FOUND_PAGE);
    const [, year, dataset, metaPath, variableId] = m;

    if (metaPath) {
      const file = variablesOf(dataset, year);
      if (!file) return html(res, 404, NOT_FOUND_PAGE);
      if (!variableId) return json(res, JSON.stringify(file, null, 2));
      const entry = file.variables[variableId];
      if (!entry) return html(res, 404, NOT_FOUND_PAGE);
      return json(res, JSON.stringify({ name: variableId, ...entry }, null, 2));
    }

    dataRequests.push(url);
    if (failuresLeft > 0) {
      failuresLeft--;
      return html(res, 503, "<html><body><h1>503 Service Unavailable</h1>The service is temporarily unavailable.</body></html>");
    }
    const key = url.searchParams.get("key");
    if (key !== null && options.validKey !== undefined && key !== options.validKey) return html(res, 200, INVALID_KEY_PAGE);
    const table = readFixture<unknown[][]>(fixtureName(dataset, year, "place"));
    if (!table) return html(res, 404, NOT_FOUND_PAGE);
    const get = (url.searchParams.get("get") ?? "").split(",").filter(Boolean);
    if (get.length === 0) return text(res, 400, "error: missing 'get' clause");
    if (get.length > 50) return text(res, 400, "error: You requested more than the maximum of 50 variables.");
    if (url.searchParams.get("for") !== "place:*") {
      return text(res, 400, `error: unknown/unsupported geography hierarchy`);
    }
    const header = table[0].map(String);
    const unknown = get.find((g) => !header.includes(g));
    if (unknown) return text(res, 400, `error: error: unknown variable '${unknown}'`);
    const cols = [...get, "state", "place"].map((c) => header.indexOf(c));
    const rows = table.map((row) => cols.map((i) => row[i]));
    json(res, `[${rows.map((r) => JSON.stringify(r)).join(",\n")}]`);
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/data`,
    requests,
    dataRequests,
    configure(next) {
      options = { ...options, ...next };
      if ("failDataRequests" in next) failuresLeft = next.failDataRequests ?? 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
