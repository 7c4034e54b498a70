// The morning with the towns' public sources: 1,000 subscribed towns (the most populous places),
// each with its own iCalendar and RSS feed plus one RSS feed all of them share (2,001 addresses),
// NWS alerts and air quality, all served locally by the stand-ins (feeds spread over 25 local
// servers, so the per-host limit behaves as with many publishers). The same morning runs twice in
// fresh data directories: without feeds, then with them; the difference in composing time is what
// fetching adds (fetches run alongside composing: each town waits only for its own feeds).
//
//   node scripts/bench/feeds-morning.ts [TOWNS]     (also the last part of `npm run bench:morning`)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createContext } from "../../src/app.ts";
import { loadConfig } from "../../src/config/load.ts";
import { createLogger } from "../../src/lib/log.ts";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import type { MorningSummary } from "../../src/services/morning/summary.ts";
import { insertTownFeed } from "../../src/store/sources/feeds.ts";
import { startOpenMeteoServer } from "../../test/helpers/open-meteo-server.ts";
import {
  CALENDAR_TYPE, libraryCalendar, nwsAlert, RSS_TYPE, rssFeed, startTownSourcesServer, type TownSourcesServer,
} from "../../test/helpers/town-sources-server.ts";
import { templateDb } from "./template-db.ts";

const NOW = "2026-11-24T20:00:00Z"; // past 06:00 everywhere from Puerto Rico to Hawaii
const HOSTS = 25;

interface Run {
  summary: MorningSummary;
  composeMs: number;
  /** CPU time of this process while composing (the stand-ins' share included): steadier than wall time on a shared machine. */
  composeCpuMs: number;
}

async function morning(towns: number, withFeeds: boolean, hosts: TownSourcesServer[], meteoUrl: string): Promise<Run> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-bench-feeds-"));
  fs.copyFileSync(templateDb(), path.join(dataDir, "citydaily.db"));
  const ctx = createContext(
    loadConfig({
      ...process.env, DATA_DIR: dataDir, NOW, OPEN_METEO_URL: meteoUrl, NWS_API_URL: hosts[0]!.url, AIR_QUALITY_API_URL: hosts[0]!.url,
      FEEDS_ALLOW_PRIVATE: "true", BASE_URL: "https://citydaily.example", MAIL_SENDER: "off", MORNING_SCHEDULE: "off",
    }),
    createLogger(process.env.LOG_LEVEL || "error"),
  );
  try {
    const at = new Date().toISOString();
    ctx.db.prepare(`INSERT INTO subscribers (email, place_geoid, status, created_at, updated_at)
      SELECT 'reader-' || geoid || '@example.org', geoid, 'active', ?, ? FROM places ORDER BY population DESC LIMIT ?`).run(at, at, towns);
    if (withFeeds) {
      const geoids = ctx.db.prepare("SELECT place_geoid FROM subscribers ORDER BY place_geoid").pluck().all() as string[];
      // Added yesterday: the morning fetches every address once.
      const yesterday = new Date(Date.parse(NOW) - 86_400_000).toISOString();
      const add = (geoid: string, url: string, kind: "ical" | "rss", title: string) =>
        insertTownFeed(ctx.db, { placeGeoid: geoid, url, kind, sourceTitle: title, title, addedBy: "staff", itemsJson: "[]", body: null, etag: null, lastModified: null }, yesterday);
      geoids.forEach((geoid, i) => {
        const host = hosts[i % HOSTS]!.url;
        add(geoid, `${host}/t/${i}/calendar.ics`, "ical", `Library ${i}`);
        add(geoid, `${host}/t/${i}/news.rss`, "rss", `Gazette ${i}`);
        add(geoid, `${hosts[0]!.url}/shared.rss`, "rss", "State Wire");
      });
    }
    const started = performance.now();
    const cpu = process.cpuUsage();
    let composedAt = started;
    let composeCpuMs = 0;
    const summary = await runMorning(ctx, {
      onProgress: (done, total) => {
        if (done !== total) return;
        composedAt = performance.now();
        const used = process.cpuUsage(cpu);
        composeCpuMs = (used.user + used.system) / 1000;
      },
    });
    return { summary, composeMs: composedAt - started, composeCpuMs };
  } finally {
    ctx.db.close();
    ctx.sources.feeds.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Prints the figures; returns what fetching added to composing, in ms. */
export async function benchFeedsMorning(towns = 1000): Promise<number> {
  const hosts = await Promise.all(Array.from({ length: HOSTS }, () => startTownSourcesServer()));
  const meteo = await startOpenMeteoServer({ today: "2026-11-24" });
  try {
    hosts[0]!.setAlerts([nwsAlert({ event: "Winter Weather Advisory", severity: "Moderate", expires: "2026-11-25T06:00:00Z" })]);
    hosts[0]!.setFeed("/shared.rss", { body: rssFeed("State Wire", Array.from({ length: 20 }, (_, k) => ({ title: `Statewide story ${k}`, link: `https://wire.example.org/${k}`, published: `2026-11-2${k % 4}T12:00:00Z` }))), contentType: RSS_TYPE, etag: '"wire"' });
    for (let i = 0; i < towns; i++) {
      const host = hosts[i % HOSTS]!;
      host.setFeed(`/t/${i}/calendar.ics`, { body: libraryCalendar({ weekStart: "2026-11-17", name: `Library ${i}`, uidSuffix: `town${i}.example.org` }), contentType: CALENDAR_TYPE });
      host.setFeed(`/t/${i}/news.rss`, {
        body: rssFeed(`Gazette ${i}`, Array.from({ length: 10 }, (_, k) => ({ title: `Town ${i} story ${k}`, link: `https://gazette${i}.example.org/${k}`, published: `2026-11-${String(14 + k).padStart(2, "0")}T12:00:00Z` }))),
        contentType: RSS_TYPE,
      });
    }
    await morning(Math.min(50, towns), true, hosts, meteo.url); // warm-up (JIT, renderer), not counted
    const base = await morning(towns, false, hosts, meteo.url);
    const feeds = await morning(towns, true, hosts, meteo.url);
    const added = feeds.composeMs - base.composeMs;
    const row = (label: string, v: string) => console.log(`  ${label.padEnd(44)} ${v}`);
    console.log(`\nmorning with public sources: ${towns.toLocaleString("en-US")} towns (NWS, air quality and feeds served locally on ${HOSTS} ports)`);
    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    row("compose + store, alerts and air quality only", `${s(base.composeMs)} (CPU ${s(base.composeCpuMs)}; ${base.summary.composed} editions)`);
    row(`compose + store, with ${feeds.summary.feeds?.sources ?? 0} feed addresses`, `${s(feeds.composeMs)} (CPU ${s(feeds.composeCpuMs)}; ${feeds.summary.composed} editions, ${feeds.summary.failed} failed)`);
    row("  feed refresh (alongside composing)", `${((feeds.summary.feeds?.ms ?? 0) / 1000).toFixed(1)} s: ${feeds.summary.feeds?.fetched} fetched, ${feeds.summary.feeds?.failed} failed`);
    row("  what fetching feeds adds", `${s(added)} wall, ${s(feeds.composeCpuMs - base.composeCpuMs)} CPU (serving the feeds included)`);
    row("whole morning (publish included)", `${(base.summary.ms / 1000).toFixed(1)} s without feeds, ${(feeds.summary.ms / 1000).toFixed(1)} s with`);
    return added;
  } finally {
    await meteo.close();
    await Promise.all(hosts.map((h) => h.close()));
  }
}

if (import.meta.filename === process.argv[1]) {
  await benchFeedsMorning(Number(process.argv[2] ?? 1000));
}
