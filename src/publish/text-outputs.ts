import fs from "node:fs";
import path from "node:path";
import { operations } from "../contract/operations/index.ts";
import { withoutMissingForecastCredit, withoutWeatherEmoji } from "../core/edition/web-edition.ts";
import { CITY_FEED_ITEMS, createSiteData, type CitiesView, type CityLink, type FeedEntry, type PlacedEdition, type SiteData } from "../site/views.ts";
import type { DB } from "../store/db.ts";
import {
  editionHtml, editionNeighbours, editionsPublishedOn, publicationDays, placedEditionsAfter, placedEditionsByIds, withNeighbourEditionIds, type PublicationDay,
} from "../store/morning/editions.ts";
import { AtomicFileWriter } from "./atomic-files.ts";
import { llmsFullTxt, llmsTxt } from "./llms.ts";
import {
  citiesMarkdown, cityMarkdown, developersMarkdown, editionMarkdown, feedMarkdown, SITE_NAME, stateMarkdown, statesMarkdown,
} from "./markdown-pages.ts";
import { frontMatter } from "./markdown-text.ts";
import { feedItemsByLink, renderFeedBytes, renderRss, rssItemXml, type RssItem } from "./rss.ts";
import { xml } from "./xml.ts";
import {
  childFile, partCount, renderSitemapIndex, renderUrlset, SITEMAP_MAX_URLS, splitUrls, type SitemapChild, type SitemapUrl,
} from "./sitemap.ts";

/*
 * The site's text outputs, written into one site generation directory:
 *   {slug}/{date}.md   {slug}.md   {slug}/feed.xml   states/{state}.md   cities.md   feed.md   feed.xml
 *   developers.md   index.md (the home twin)   llms.txt   llms-full.txt   sitemap.xml   sitemaps/*.xml
 * A full build writes all of them. A morning's incremental build writes what its new editions change:
 * their twins, their cities' pages and feeds, their states' pages, the global lists, and only the
 * sitemap children that gained URLs. Sitemap children are cut so old ones never change:
 *   sitemaps/pages.xml               home, /cities, /developers, the state pages
 *   sitemaps/cities-{state}.xml      the city pages of one state
 *   sitemaps/editions-{day}.xml      the editions published on one UTC day (further parts: .2.xml, ...)
 */

/** What the text outputs read: the database, the public origin and the clock (an `AppContext` will do). */
export interface TextOutputContext {
  db: DB;
  config: { baseUrl: string; now(): Date };
}

export interface TextOutputOptions {
  /** The generation directory being built. */
  outDir: string;
  /**
   * Where the dated edition twins `{slug}/{date}.md` go (default: `outDir`). They never change once
   * written, so the site keeps them in an append-only archive next to the generations.
   */
  archiveDir?: string;
  /** The new editions of this run (ignored when `full`). */
  editionIds: readonly number[];
  full: boolean;
  /** URLs per sitemap child, at most (and by default) 50,000; tests lower it to force several parts. */
  sitemapMaxUrls?: number;
  /** The site's read model to render from (one per publish run); made here when not given. */
  site?: SiteData;
  /**
   * `outDir` is a new generation nobody reads yet and nothing was linked into: files are written in
   * place rather than through a temporary name (the publish links the unchanged ones in afterwards).
   */
  fresh?: boolean;
  /** Sees every file written to `outDir` (relative path, content): the publish's compressed copies. */
  onWrite?: (relPath: string, content: string | Buffer) => void;
  /**
   * The renderers of the city pages write each affected city's twin and feed with its page
   * (`RenderJob.cityFiles`, a morning): they are left out here.
   */
  cityFilesWithPages?: boolean;
  /** Where replaced archive twins are kept until the publish is done (`SyncFileWriter`). */
  retireTo?: string;
  /** Editions before the new ones whose twins the morning already patched (`patchNextLinks`): not written again. */
  twinsPatched?: ReadonlySet<number>;
}

/** Items in /feed.xml (all cities); each /{slug}/feed.xml has `CITY_FEED_ITEMS` (src/site/views.ts). */
export const FEED_ITEMS = 50;
/** Editions listed by /feed.md and llms-full.txt. */
export const RECENT_ITEMS = 30;
/** Editions read per query during a full rebuild. */
const FULL_BATCH = 500;

/** Writes the text outputs and returns the number of files written. */
export async function writeTextOutputs(ctx: TextOutputContext, opts: TextOutputOptions): Promise<number> {
  const { db } = ctx;
  const site = opts.site ?? createSiteData(db, ctx.config.baseUrl, { now: () => ctx.config.now() });
  const base = ctx.config.baseUrl;
  const now = ctx.config.now();
  const out = new AtomicFileWriter(opts.outDir, { atomic: !opts.fresh, onWrite: opts.onWrite });
  const archiveOut = opts.archiveDir && opts.archiveDir !== opts.outDir ? new AtomicFileWriter(opts.archiveDir, { retireTo: opts.retireTo }) : out;
  const { touchedCities, touchedDays } = await writeEditionTwins(db, base, opts, archiveOut);

  // The directory view of /cities: every city with an edition, grouped by state.
  const directory = site.cities();
  const states = directory.states;
  const cities = states.flatMap((g) => g.cities);
  const affected = opts.full ? cities : cities.filter((c) => touchedCities.has(c.slug));
  const affectedStates = new Set(affected.map((c) => c.state));

  // City twins and city feeds, from the views the city pages render.
  if (!opts.cityFilesWithPages) {
    for (const city of affected) for (const [rel, body] of cityFiles(db, site, city.slug, now)) await out.write(rel, body);
  }

  for (const g of states) {
    const view = (opts.full || affectedStates.has(g.name)) && site.state(g.slug);
    if (view) await out.write(`states/${g.slug}.md`, stateMarkdown(base, view));
  }

  const days = await writeGlobalLists(db, site, out, { base, directory, cities, full: opts.full, now });
  await writeSitemaps(db, base, out, {
    states, cities, days, now, maxUrls: Math.max(1, Math.min(opts.sitemapMaxUrls ?? SITEMAP_MAX_URLS, SITEMAP_MAX_URLS)),
    changed: (g) => opts.full || affectedStates.has(g.name), dayChanged: (d) => opts.full || touchedDays.has(d.day),
  });

  return out.written + (archiveOut === out ? 0 : archiveOut.written);
}

/** Edition twins: every edition (read in id-ordered pages) or just the new ones; says which cities and publication days they touched. */
async function writeEditionTwins(db: DB, base: string, opts: TextOutputOptions, archiveOut: AtomicFileWriter): Promise<{ touchedCities: Set<string>; touchedDays: Set<string> }> {
  const touchedCities = new Set<string>();
  const touchedDays = new Set<string>();
  const writeEdition = async (e: PlacedEdition) => {
    await archiveOut.write(`${e.slug}/${e.date}.md`, editionMarkdown(base, e, editionNeighbours(db, e.place_geoid, e.date)));
    touchedCities.add(e.slug);
    touchedDays.add(e.published_at.slice(0, 10));
  };
  if (opts.full) {
    for (let after = 0; ;) {
      const batch = placedEditionsAfter(db, after, FULL_BATCH);
      if (batch.length === 0) break;
      for (const e of batch) await writeEdition(e);
      after = batch.at(-1)!.id;
    }
  } else {
    const fresh = new Set(opts.editionIds);
    const patched = opts.twinsPatched ?? new Set<number>();
    for (const e of placedEditionsByIds(db, withNeighbourEditionIds(db, opts.editionIds).filter((id) => !patched.has(id)))) {
      // The editions beside a new one only gain a link to it: their twins again, nothing else of them changes.
      if (fresh.has(e.id)) await writeEdition(e);
      else await archiveOut.write(`${e.slug}/${e.date}.md`, editionMarkdown(base, e, editionNeighbours(db, e.place_geoid, e.date)));
    }
  }
  return { touchedCities, touchedDays };
}

/** Global lists: small and bounded, rewritten on every run. Returns the publication days (the sitemaps list them too). */
async function writeGlobalLists(db: DB, site: SiteData, out: AtomicFileWriter, run: { base: string; directory: CitiesView; cities: CityLink[]; full: boolean; now: Date }): Promise<PublicationDay[]> {
  const { base, directory, cities } = run;
  const recent = site.recent(FEED_ITEMS);
  await out.write("cities.md", citiesMarkdown(base, directory));
  await out.write("states.md", statesMarkdown(base, directory));
  await out.write("feed.md", feedMarkdown(base, recent.slice(0, RECENT_ITEMS)));
  await out.write("feed.xml", renderRss({
    title: `${SITE_NAME}: recent editions`,
    link: `${base}/`,
    selfUrl: `${base}/feed.xml`,
    description: "The latest editions of citydaily, the free daily newsletter for U.S. cities, across all cities.",
  }, recent.map((e) => rssItem(base, e)), base, run.now));

  const days = publicationDays(db);
  // The quick start's example edition is one the site has (its first), so the command answers.
  const developers = developersMarkdown(base, operations, site.developers().example);
  if (run.full) await out.write("developers.md", developers);
  const llmsInput = {
    states: directory.states.map((g) => ({ name: g.name, slug: g.slug, cities: g.cityCount })),
    cityCount: directory.cityCount,
    editionCount: days.reduce((n, d) => n + d.editions, 0),
    latestDate: maxOf(cities.map((c) => c.latestDate)),
  };
  const llms = llmsTxt(base, llmsInput);
  await out.write("llms.txt", llms);
  // The home page's markdown twin (`/` with Accept: text/markdown) is the same overview.
  await out.write("index.md", frontMatter({ url: `${base}/` }) + llms);
  await out.write("llms-full.txt", llmsFullTxt(base, { ...llmsInput, cities, recent: recent.slice(0, RECENT_ITEMS), developers }));
  return days;
}

type StateGroup = CitiesView["states"][number];

/** Sitemaps: every child is listed in the index; only new or changed ones (`changed`, `dayChanged`) are written. */
async function writeSitemaps(db: DB, base: string, out: AtomicFileWriter, run: {
  states: StateGroup[]; cities: CityLink[]; days: PublicationDay[]; now: Date; maxUrls: number;
  changed: (g: StateGroup) => boolean; dayChanged: (d: PublicationDay) => boolean;
}): Promise<void> {
  const { states, cities, days, now, maxUrls } = run;
  const children: SitemapChild[] = [];
  const child = async (key: string, count: number, lastmod: string, write: boolean, urls: () => SitemapUrl[]) => {
    // A child written now is listed by the parts actually written; an untouched one by its count.
    const split = write ? splitUrls(urls(), maxUrls) : undefined;
    const parts = split?.length ?? partCount(count, maxUrls);
    for (let n = 1; n <= parts; n++) children.push({ loc: `${base}/sitemaps/${childFile(key, n)}`, lastmod });
    for (let n = 0; n < (split?.length ?? 0); n++) await out.write(`sitemaps/${childFile(key, n + 1)}`, renderUrlset(split![n]));
  };
  const newest = maxOf(cities.map((c) => c.latestPublishedAt)) ?? now.toISOString();
  const pages: SitemapUrl[] = [
    { loc: `${base}/`, lastmod: newest },
    { loc: `${base}/cities`, lastmod: newest },
    { loc: `${base}/states`, lastmod: newest },
    { loc: `${base}/developers` },
    ...states.map((g) => ({ loc: `${base}/states/${g.slug}`, lastmod: maxOf(g.cities.map((c) => c.latestPublishedAt)) })),
  ];
  await child("pages", pages.length, newest, true, () => pages);
  for (const g of states) {
    await child(`cities-${g.slug}`, g.cities.length, maxOf(g.cities.map((c) => c.latestPublishedAt))!, run.changed(g),
      () => g.cities.map((c) => ({ loc: `${base}/${c.slug}`, lastmod: c.latestPublishedAt })));
  }
  for (const d of days) {
    await child(`editions-${d.day}`, d.editions, d.last_published_at, run.dayChanged(d),
      () => editionsPublishedOn(db, d.day).map((e) => ({ loc: `${base}/${e.slug}/${e.date}`, lastmod: e.published_at })));
  }
  await out.write("sitemap.xml", renderSitemapIndex(children));
}

/**
 * A city's twin and feed (relative path, content), from the same view its page renders; none for a
 * place without one. `keepFeedItemsFrom`: the live generation, when its feeds' items may be kept (built
 * with the same base URL and `FEED_ITEM_FORMAT`): an edition the feed already carries is not read and
 * rendered again.
 */
export function cityFiles(db: DB, site: SiteData, slug: string, now: Date, keepFeedItemsFrom?: string): Array<[string, string | Buffer]> {
  const view = site.city(slug);
  if (!view) return [];
  const base = site.baseUrl;
  const { name, state } = view.place;
  const kept = keepFeedItemsFrom ? keptFeedItems(path.join(keepFeedItemsFrom, slug, "feed.xml")) : undefined;
  const items = site.cityFeed(slug).map((e) => ({
    publishedAt: e.published_at,
    xml: kept?.get(xml(`${base}/${e.slug}/${e.date}`)) ?? rssItemXml(rssItem(base, { ...e, html: editionHtml(db, e.id) ?? "" }), base),
  }));
  return [
    [`${slug}.md`, cityMarkdown(base, view)],
    [`${slug}/feed.xml`, renderFeedBytes({
      title: `${name} Daily: ${name}, ${state}`,
      link: `${base}/${slug}`,
      selfUrl: `${base}/${slug}/feed.xml`,
      description: `The free daily newsletter for ${name}, ${state}: the ${CITY_FEED_ITEMS} latest editions.`,
    }, items, now)],
  ];
}

/** The items of a city's live feed, by link; none when it has no feed yet. */
function keptFeedItems(file: string): Map<string, Buffer> | undefined {
  try {
    return feedItemsByLink(fs.readFileSync(file));
  } catch {
    return undefined;
  }
}

function rssItem(base: string, e: FeedEntry & { html: string }): RssItem {
  // Editions stored with weather emoji (before the text went emoji-free) carry only the words in feeds,
  // and one of a morning without a forecast credits none.
  return { title: e.subject, link: `${base}/${e.slug}/${e.date}`, publishedAt: e.published_at, html: withoutMissingForecastCredit(withoutWeatherEmoji(e.html)), category: `${e.name}, ${e.state_name}` };
}

function maxOf(values: readonly string[]): string | undefined {
  let m: string | undefined;
  for (const v of values) if (m === undefined || v > m) m = v;
  return m;
}
