import { EMBED_SIZE, type OEmbedResponse } from "../../contract/operations/oembed.ts";
import { AppError } from "../../core/errors.ts";
import { isWellFormedSlug } from "../../contract/slug.ts";
import { findEdition, latestEditionDate } from "../../store/morning/editions.ts";
import { findPlaceBySlug } from "../../store/places/places.ts";
import { editionExcerpt } from "../../site/excerpt.ts";
import type { AppContext } from "../platform/context.ts";

/** What the embeddable card of a city page or an edition page shows. */
export interface EmbedCard {
  slug: string;
  city: string;
  state: string;
  date: string;
  subject: string;
  excerpt: string;
  /** The page the card stands for. */
  pageUrl: string;
  /** The card itself (`/embed/...`). */
  embedUrl: string;
  title: string;
  /** Whether it is a dated edition (fixed forever) rather than a city's latest. */
  dated: boolean;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const EXCERPT_CHARS = 240;

/** The card of a city (its latest edition) or of one dated edition; undefined when that page does not exist. */
export function embedCard(ctx: AppContext, slug: string, date?: string): EmbedCard | undefined {
  if (!isWellFormedSlug(slug) || (date !== undefined && !DATE.test(date))) return undefined;
  const place = findPlaceBySlug(ctx.db, slug);
  if (!place) return undefined;
  const day = date ?? latestEditionDate(ctx.db, place.geoid);
  const edition = day ? findEdition(ctx.db, place.geoid, day) : undefined;
  if (!edition) return undefined;
  const base = ctx.config.baseUrl;
  const path = date ? `/${slug}/${date}` : `/${slug}`;
  return {
    slug, city: place.name, state: place.state_name, date: edition.date, subject: edition.subject,
    // The same first paragraph of news as the city cards (never headings run into the text).
    excerpt: editionExcerpt(edition.markdown, EXCERPT_CHARS),
    pageUrl: `${base}${path}`, embedUrl: `${base}/embed${path}`,
    title: date ? `${place.name}, ${place.state_name} · ${edition.date}: ${edition.subject}` : `${place.name}, ${place.state_name} Daily`,
    dated: date !== undefined,
  };
}

/** The page of ours a URL names: `{base}/{slug}` or `{base}/{slug}/{date}` (a trailing slash or query is tolerated). */
function pageOf(baseUrl: string, url: string): { slug: string; date?: string } | undefined {
  const base = new URL(baseUrl);
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.origin !== base.origin) return undefined;
  const prefix = base.pathname.replace(/\/$/, "");
  if (!u.pathname.startsWith(`${prefix}/`)) return undefined;
  const parts = u.pathname.slice(prefix.length + 1).replace(/\/$/, "").split("/");
  if (parts.length === 1) return { slug: parts[0] };
  if (parts.length === 2) return { slug: parts[0], date: parts[1] };
  return undefined;
}

export function getOEmbed(ctx: AppContext, input: { url: string; format: "json" | "xml" }): OEmbedResponse {
  if (input.format === "xml") throw new AppError("not_implemented", "format=xml is not implemented; ask for format=json (the default).");
  const page = pageOf(ctx.config.baseUrl, input.url);
  const card = page && embedCard(ctx, page.slug, page.date);
  if (!card) {
    throw new AppError("not_found", `${input.url.slice(0, 200)} is not a city page or a dated edition page of ${ctx.config.baseUrl}.`);
  }
  // The interface spec (section 4) fixes the size: `maxwidth` and `maxheight` are accepted and ignored.
  const size = EMBED_SIZE;
  const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return {
    type: "rich",
    version: "1.0",
    provider_name: "citydaily",
    provider_url: ctx.config.baseUrl,
    title: card.title,
    html: `<iframe src="${escape(card.embedUrl)}" width="${size.width}" height="${size.height}" title="${escape(card.title)}" style="border:0" loading="lazy"></iframe>`,
    width: size.width,
    height: size.height,
    cache_age: card.dated ? 86_400 : 3_600,
  };
}
