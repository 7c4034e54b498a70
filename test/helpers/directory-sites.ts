import http from "node:http";
import type { AddressInfo } from "node:net";
import { rssFeed, type FeedItemInput } from "./town-sources-server.ts";

/**
 * Stand-ins for the sites the town directory points at, each its own origin on 127.0.0.1 (port 0),
 * answering as such sites do: a CivicPlus city site, a WordPress paper, a site whose 2016 feed is
 * gone, one that is down, one that redirects to a private address, a county paper, and Legistar's
 * public Web API. Content is scriptable per test (`site.set(pathAndQuery, answer)`).
 */

export interface Answer {
  status?: number;
  type?: string;
  body?: string;
  /** A redirect's target (status 302 unless given). */
  location?: string;
  /** Sent as ETag; a request with the same If-None-Match is answered 304. */
  etag?: string;
}

export interface Site {
  /** Origin, e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** Path and query (`/RSSFeed.aspx?ModID=1&CID=All-newsflash.xml`), or a path for any query. */
  set(path: string, answer: Answer | ((req: URL) => Answer)): void;
  /** Requests received, as path + query, in order. */
  readonly requests: string[];
  /** Requests' If-None-Match headers ("" when none), in order. */
  readonly conditions: string[];
  /** Requests' User-Agent headers. */
  readonly userAgents: string[];
  close(): Promise<void>;
}

export async function startSite(): Promise<Site> {
  const routes = new Map<string, Answer | ((req: URL) => Answer)>();
  const requests: string[] = [];
  const conditions: string[] = [];
  const userAgents: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    requests.push(url.pathname + url.search);
    userAgents.push(String(req.headers["user-agent"] ?? ""));
    conditions.push(String(req.headers["if-none-match"] ?? ""));
    // CivicPlus addresses are matched with their query; feeds and pages by path.
    const route = routes.get(url.pathname + url.search) ?? routes.get(url.pathname);
    const a = typeof route === "function" ? route(url) : route;
    if (!a) {
      res.writeHead(404, { "Content-Type": "text/html; charset=utf-8" });
      return res.end("<!doctype html><title>Page not found</title><h1>Page not found</h1>");
    }
    if (a.location) {
      res.writeHead(a.status ?? 302, { Location: a.location });
      return res.end();
    }
    if (a.etag && req.headers["if-none-match"] === a.etag) {
      res.writeHead(304, { ETag: a.etag });
      return res.end();
    }
    res.writeHead(a.status ?? 200, { "Content-Type": a.type ?? "text/html; charset=utf-8", ...(a.etag ? { ETag: a.etag } : {}) });
    res.end(a.body ?? "");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    set: (path, answer) => void routes.set(path, answer),
    requests,
    conditions,
    userAgents,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** An origin where nothing listens (a site that is down): a port opened and closed again. */
export async function downOrigin(): Promise<string> {
  const s = http.createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

const HTML = "text/html; charset=utf-8";
const RSS = "application/rss+xml; charset=utf-8";

// --- CivicPlus ------------------------------------------------------------------------------------

/** A CivicPlus home page: no feed links in its head (CivicPlus sites do not announce them). */
export function civicPlusHome(city: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${city}, NV | Official Website</title>
<link rel="stylesheet" href="/Assets/Styles/site.css"><link rel="shortcut icon" href="/favicon.ico"></head>
<body><header><a href="/">${city}</a><nav><a href="/CivicAlerts.aspx">News Flash</a> <a href="/Calendar.aspx">Calendar</a> <a href="/AgendaCenter">Agendas &amp; Minutes</a></nav></header>
<main><h1>Welcome to ${city}</h1></main></body></html>`;
}

/** The Agenda Center page (HTML: the agendas themselves are linked from its RSS and the calendar). */
export function agendaCenterPage(city: string, agendas: Array<{ title: string; href: string }>): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Agenda Center • ${city}, NV • CivicEngage</title></head>
<body><h1>Agenda Center</h1><div class="catAgendaRow">${agendas.map((a) => `<p><a href="${a.href}">${a.title}</a></p>`).join("")}</div></body></html>`;
}

/** CivicPlus's iCalendar export: VTIMEZONE, events whose `URL:` is relative to the site. */
export function civicPlusCalendar(events: Array<{ id: number; title: string; start: string; end: string; location: string }>): string {
  const stamp = (wall: string) => `${wall.replace(/[-:]/g, "")}00`;
  return [
    "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//CivicPlus//Calendar//EN", "METHOD:PUBLISH", "X-WR-CALNAME:Main Calendar",
    "BEGIN:VTIMEZONE", "TZID:Pacific Standard Time",
    "BEGIN:STANDARD", "DTSTART:16011104T020000", "RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=11", "TZOFFSETFROM:-0700", "TZOFFSETTO:-0800", "END:STANDARD",
    "BEGIN:DAYLIGHT", "DTSTART:16010311T020000", "RRULE:FREQ=YEARLY;BYDAY=2SU;BYMONTH=3", "TZOFFSETFROM:-0800", "TZOFFSETTO:-0700", "END:DAYLIGHT",
    "END:VTIMEZONE",
    ...events.flatMap((e) => [
      "BEGIN:VEVENT", `UID:${e.id}@civicplus.com`, "DTSTAMP:20261101T120000Z",
      `DTSTART;TZID=Pacific Standard Time:${stamp(e.start)}`, `DTEND;TZID=Pacific Standard Time:${stamp(e.end)}`,
      `SUMMARY:${e.title}`, `LOCATION:${e.location.replace(/,/g, "\\,")}`, `URL:/Calendar.aspx?EID=${e.id}`, "END:VEVENT",
    ]),
    "END:VCALENDAR", "",
  ].join("\r\n");
}

/** Sets up a CivicPlus-like city site on `site`; returns the addresses its feeds live at. */
export function civicPlusSite(site: Site, options: { city: string; news: FeedItemInput[]; events: Parameters<typeof civicPlusCalendar>[0]; agendas: FeedItemInput[] }) {
  const news = "/RSSFeed.aspx?ModID=1&CID=All-newsflash.xml";
  const calendar = "/common/modules/iCalendar/iCalendar.aspx?catID=14&feed=calendar";
  const agendas = "/RSSFeed.aspx?ModID=65&CID=All-0";
  site.set("/", { body: civicPlusHome(options.city) });
  site.set("/robots.txt", { type: "text/plain", body: "User-agent: *\nDisallow: /admin/\nDisallow: /Search\n" });
  site.set(news, { type: RSS, body: rssFeed(`${options.city}, NV - News Flash`, options.news, `${site.url}/CivicAlerts.aspx`) });
  site.set(calendar, { type: "text/calendar; charset=utf-8", body: civicPlusCalendar(options.events) });
  site.set(agendas, { type: RSS, body: rssFeed(`${options.city}, NV - Agenda Center`, options.agendas, `${site.url}/AgendaCenter`) });
  site.set("/AgendaCenter", { body: agendaCenterPage(options.city, options.agendas.map((a) => ({ title: a.title, href: a.link }))) });
  return { news: site.url + news, calendar: site.url + calendar, agendas: site.url + agendas };
}

// --- WordPress ------------------------------------------------------------------------------------

/** A WordPress home page: the main feed and the comments feed announced in its head (absolute, as WordPress writes them). */
export function wordPressHome(name: string, origin: string): string {
  return `<!DOCTYPE html>
<html lang="en-US"><head><meta charset="UTF-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${name} &#8211; News for White Pine County</title>
<link rel='dns-prefetch' href='//fonts.googleapis.com' />
<link rel="alternate" type="application/rss+xml" title="${name} &raquo; Feed" href="${origin}/feed/" />
<link rel="alternate" type="application/rss+xml" title="${name} &raquo; Comments Feed" href="${origin}/comments/feed/" />
<link rel="https://api.w.org/" href="${origin}/wp-json/" />
<meta name="generator" content="WordPress 6.6.2" /></head>
<body class="home blog"><h1>${name}</h1></body></html>`;
}

export function wordPressSite(site: Site, options: { name: string; items: FeedItemInput[]; robots?: string; etag?: string }) {
  site.set("/", { body: wordPressHome(options.name, site.url) });
  site.set("/robots.txt", { type: "text/plain", body: options.robots ?? "User-agent: *\nDisallow: /wp-admin/\nAllow: /wp-admin/admin-ajax.php\n" });
  site.set("/feed/", { type: RSS, body: rssFeed(options.name, options.items, `${site.url}/`), etag: options.etag });
  site.set("/comments/feed/", { type: RSS, body: rssFeed(`Comments for ${options.name}`, [{ title: "Comment on Council approves rates by Bob", link: `${site.url}/c/1`, published: "2026-11-23T10:00:00Z" }], `${site.url}/`) });
  return { feed: `${site.url}/feed/` };
}

// --- Legistar -------------------------------------------------------------------------------------

export interface LegistarEventInput {
  id: number;
  body: string;
  /** YYYY-MM-DD. */
  date: string;
  /** As Legistar writes it: "6:00 PM". */
  time: string | null;
  location: string;
  agendaFile: string | null;
  agendaStatus?: string;
  comment?: string | null;
}

/** One event as Legistar's Web API answers it (`GET /v1/{client}/events`). */
export function legistarEvent(client: string, e: LegistarEventInput) {
  return {
    EventId: e.id,
    EventGuid: `0F3C${String(e.id).padStart(4, "0")}-8B1D-4C55-9E1A-7D2B7F3B${String(e.id).padStart(4, "0")}`,
    EventLastModifiedUtc: "2026-11-20T17:03:12.17",
    EventRowVersion: "AAAAAAEq3vE=",
    EventBodyId: 138,
    EventBodyName: e.body,
    EventDate: `${e.date}T00:00:00`,
    EventTime: e.time,
    EventVideoStatus: "Public",
    EventAgendaStatusId: e.agendaStatus === "Draft" ? 1 : 2,
    EventAgendaStatusName: e.agendaStatus ?? "Final",
    EventMinutesStatusId: 1,
    EventMinutesStatusName: "Draft",
    EventLocation: e.location,
    EventAgendaFile: e.agendaFile,
    EventMinutesFile: null,
    EventAgendaLastPublishedUTC: e.agendaFile ? "2026-11-20T23:11:41.203" : null,
    EventMinutesLastPublishedUTC: null,
    EventComment: e.comment ?? null,
    EventVideoPath: null,
    EventMedia: null,
    EventInSiteURL: `https://${client}.legistar.com/MeetingDetail.aspx?LEGID=${e.id}&GID=512&G=6E4F3B1D-2C41-4F7A-9E44-1F0A2B3C4D5E`,
    EventItems: [],
  };
}

/**
 * Legistar's Web API for some clients: `/v1/{client}/events` with OData's `$filter` (EventDate ge/lt
 * datetime'YYYY-MM-DD'), `$orderby` (EventDate [desc]) and `$top`.
 */
export function legistarApi(site: Site, clients: Record<string, LegistarEventInput[]>) {
  site.set("/robots.txt", { type: "text/plain", body: "User-agent: *\nDisallow:\n" });
  for (const client of Object.keys(clients)) {
    site.set(`/v1/${client}/events`, (req) => {
      let rows = (clients[client] ?? []).map((e) => legistarEvent(client, e));
      for (const m of (req.searchParams.get("$filter") ?? "").matchAll(/EventDate\s+(ge|gt|lt|le)\s+datetime'(\d{4}-\d{2}-\d{2})'/gi)) {
        const [, op, d] = m;
        rows = rows.filter((r) => { const x = r.EventDate.slice(0, 10); return op === "ge" ? x >= d! : op === "gt" ? x > d! : op === "lt" ? x < d! : x <= d!; });
      }
      const order = req.searchParams.get("$orderby") ?? "";
      if (/EventDate/i.test(order)) rows.sort((a, b) => a.EventDate.localeCompare(b.EventDate) * (/desc/i.test(order) ? -1 : 1));
      const top = Number(req.searchParams.get("$top"));
      if (top > 0) rows = rows.slice(0, top);
      return { type: "application/json; charset=utf-8", body: JSON.stringify(rows) };
    });
  }
}

export { HTML, RSS };
