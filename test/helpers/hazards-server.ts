import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * One local stand-in for the hazard providers every town shares, answering in their real formats:
 *
 * - `GET /earthquakes/feed/v1.0/summary/2.5_day.geojson`: USGS's real-time summary feed (a GeoJSON
 *   FeatureCollection with `metadata`, `application/json`), with an ETag and Last-Modified, answering
 *   304 to a matching conditional request like USGS does. Use `url` as `USGS_EARTHQUAKES_URL`.
 * - `GET /api/open/v2/DisasterDeclarationsSummaries?$filter=...`: OpenFEMA (`{ metadata, DisasterDeclarationsSummaries }`),
 *   the rows filtered by the `declarationDate ge '...'` of `$filter`. Use `${url}/api/open` as `OPENFEMA_API_URL`.
 *
 * Each can be put in a mode: `ok`, `error` (503, with `Retry-After` when given), `slow` (nothing for
 * `delayMs`: a hung provider), `invalid` (200 with a body that is not the format).
 */
export type HazardMode = "ok" | "error" | "slow" | "invalid";
export type HazardProvider = "usgs" | "openfema";

export const USGS_PATH = "/earthquakes/feed/v1.0/summary/2.5_day.geojson";
export const OPENFEMA_PATH = "/api/open/v2/DisasterDeclarationsSummaries";

export interface QuakeInput {
  id: string;
  mag: number;
  place: string;
  /** Epoch ms. */
  time: number;
  latitude: number;
  longitude: number;
  depth?: number;
  felt?: number | null;
  alert?: "green" | "yellow" | "orange" | "red" | null;
  tsunami?: 0 | 1;
  type?: string;
}

/** One feature as USGS sends it. */
export function usgsFeature(q: QuakeInput) {
  return {
    type: "Feature",
    properties: {
      mag: q.mag, place: q.place, time: q.time, updated: q.time + 600_000, tz: null,
      url: `https://earthquake.usgs.gov/earthquakes/eventpage/${q.id}`,
      detail: `https://earthquake.usgs.gov/earthquakes/feed/v1.0/detail/${q.id}.geojson`,
      felt: q.felt ?? null, cdi: q.felt ? 3.4 : null, mmi: null, alert: q.alert ?? null, status: "reviewed", tsunami: q.tsunami ?? 0,
      sig: Math.round(q.mag * 60), net: q.id.slice(0, 2), code: q.id.slice(2), ids: `,${q.id},`, sources: `,${q.id.slice(0, 2)},`,
      types: ",origin,phase-data,", nst: 40, dmin: 0.05, rms: 0.2, gap: 40, magType: "ml", type: q.type ?? "earthquake",
      title: `M ${q.mag.toFixed(1)} - ${q.place}`,
    },
    geometry: { type: "Point", coordinates: [q.longitude, q.latitude, q.depth ?? 8.5] },
    id: q.id,
  };
}

export interface DeclarationInput {
  disasterNumber: number;
  state: string;
  declarationType: "DR" | "EM" | "FM";
  declarationDate: string;
  incidentType: string;
  declarationTitle: string;
  fipsStateCode: string;
  fipsCountyCode: string;
  designatedArea: string;
}

/** One row as OpenFEMA sends it (v2, all fields). */
export function femaRow(d: DeclarationInput) {
  return {
    femaDeclarationString: `${d.declarationType}-${d.disasterNumber}-${d.state}`,
    disasterNumber: d.disasterNumber, state: d.state, declarationType: d.declarationType, declarationDate: d.declarationDate,
    fyDeclared: 2027, incidentType: d.incidentType, declarationTitle: d.declarationTitle,
    ihProgramDeclared: true, iaProgramDeclared: false, paProgramDeclared: true, hmProgramDeclared: true,
    incidentBeginDate: d.declarationDate, incidentEndDate: null, disasterCloseoutDate: null, tribalRequest: false,
    fipsStateCode: d.fipsStateCode, fipsCountyCode: d.fipsCountyCode, placeCode: `99${d.fipsCountyCode}`, designatedArea: d.designatedArea,
    declarationRequestNumber: "26101", lastIAFilingDate: null, incidentId: `${d.disasterNumber}`, region: 9, designatedIncidentTypes: "R",
    lastRefresh: d.declarationDate, hash: createHash("sha1").update(JSON.stringify(d)).digest("hex"), id: `${d.disasterNumber}-${d.fipsCountyCode}`,
  };
}

export interface HazardsServer {
  /** Origin: `USGS_EARTHQUAKES_URL`; `${url}/api/open` is `OPENFEMA_API_URL`. */
  url: string;
  readonly requests: Array<{ path: string; query: URLSearchParams; headers: http.IncomingHttpHeaders }>;
  callsTo(provider: HazardProvider): number;
  setQuakes(quakes: QuakeInput[]): void;
  setDeclarations(rows: DeclarationInput[]): void;
  setMode(provider: HazardProvider, mode: HazardMode, options?: { retryAfter?: string; delayMs?: number }): void;
  close(): Promise<void>;
}

export async function startHazardsServer(): Promise<HazardsServer> {
  let quakes: QuakeInput[] = [];
  let rows: DeclarationInput[] = [];
  const modes: Record<HazardProvider, { mode: HazardMode; retryAfter?: string; delayMs?: number }> = { usgs: { mode: "ok" }, openfema: { mode: "ok" } };
  const requests: HazardsServer["requests"] = [];
  const timers = new Set<NodeJS.Timeout>();

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    requests.push({ path: url.pathname, query: url.searchParams, headers: req.headers });
    const provider: HazardProvider | null = url.pathname === USGS_PATH ? "usgs" : url.pathname === OPENFEMA_PATH ? "openfema" : null;
    if (!provider) {
      res.writeHead(404, { "Content-Type": "text/plain" });
      return res.end("not found");
    }
    const m = modes[provider];
    if (m.mode === "slow") {
      const timer = setTimeout(() => res.destroy(), m.delayMs ?? 60_000);
      timers.add(timer);
      res.on("close", () => {
        clearTimeout(timer);
        timers.delete(timer);
      });
      return;
    }
    if (m.mode === "error") {
      res.writeHead(503, { "Content-Type": "text/html", ...(m.retryAfter ? { "Retry-After": m.retryAfter } : {}) });
      return res.end("<html><body>Service Unavailable</body></html>");
    }
    if (m.mode === "invalid") {
      res.writeHead(200, { "Content-Type": "application/json" });
      return res.end(provider === "usgs" ? '{"type":"Feature"}' : '{"error":"bad filter"}');
    }
    let body: string;
    if (provider === "usgs") {
      const features = [...quakes].sort((a, b) => b.time - a.time).map(usgsFeature);
      body = JSON.stringify({
        type: "FeatureCollection",
        metadata: { generated: Math.max(0, ...quakes.map((q) => q.time)) + 60_000, url: `https://earthquake.usgs.gov${USGS_PATH}`, title: "USGS Magnitude 2.5+ Earthquakes, Past Day", status: 200, api: "1.14.1", count: features.length },
        features,
        bbox: [-180, -90, -10, 180, 90, 700],
      });
    } else {
      const since = /declarationDate ge '([^']+)'/.exec(url.searchParams.get("$filter") ?? "")?.[1];
      const list = rows.filter((r) => !since || r.declarationDate >= since).sort((a, b) => b.declarationDate.localeCompare(a.declarationDate)).map(femaRow);
      body = JSON.stringify({ metadata: { skip: 0, filter: url.searchParams.get("$filter"), orderby: {}, select: null, rundate: "2026-11-26T10:00:00.000Z", top: 5000, format: "json", metadata: true, entityname: "DisasterDeclarationsSummaries", version: "v2", url: "/api/open/v2/DisasterDeclarationsSummaries", count: 0 }, DisasterDeclarationsSummaries: list });
    }
    // USGS sends validators and answers 304; OpenFEMA is given the same here (the client only echoes what it was sent).
    const etag = `"${createHash("sha1").update(body).digest("hex").slice(0, 16)}"`;
    if (req.headers["if-none-match"] === etag) {
      res.writeHead(304, { ETag: etag });
      return res.end();
    }
    res.writeHead(200, { "Content-Type": "application/json", ETag: etag, "Last-Modified": "Thu, 26 Nov 2026 14:59:00 GMT", "Cache-Control": "max-age=60" });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    callsTo: (provider) => requests.filter((r) => r.path === (provider === "usgs" ? USGS_PATH : OPENFEMA_PATH)).length,
    setQuakes: (q) => { quakes = q; },
    setDeclarations: (r) => { rows = r; },
    setMode: (provider, mode, options = {}) => { modes[provider] = { mode, ...options }; },
    close: async () => {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
