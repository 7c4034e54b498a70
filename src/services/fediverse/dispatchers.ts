import { LanguageString, type Context, type Federation } from "@fedify/fedify";
import { Temporal } from "@js-temporal/polyfill";
import { Article, Create, Endpoints, Image, PUBLIC_COLLECTION, Service } from "@fedify/fedify/vocab";
import { isWellFormedSlug } from "../../contract/slug.ts";
import { actorProfile, articleOf } from "../../core/fediverse/article.ts";
import { followerCount, followersPage } from "../../store/fediverse/followers.ts";
import { recentTownEditions, townEdition, type DuePost } from "../../store/fediverse/posts.ts";
import { editionCount } from "../../store/morning/editions.ts";
import { siteTotals } from "../../store/fediverse/totals.ts";
import type { AppContext } from "../platform/context.ts";
import { ACTOR_PATH, ARTICLE_PATH, FOLLOWERS_PATH, ICON_PATH, NODEINFO_PATH, OUTBOX_PATH } from "./paths.ts";
import { actorTown, townKeyPairs, type ActorTown } from "./towns.ts";

/** Followers per page of the followers collection. */
const FOLLOWERS_PAGE = 500;
/** Editions the outbox lists, newest first. */
const OUTBOX_ITEMS = 20;

type Edition = Omit<DuePost, "slug" | "name" | "state">;

/** Fedify's vocabulary takes the Temporal polyfill's instants, typed as the global Temporal it stands in for. */
const instant = (iso: string) => Temporal.Instant.from(iso) as unknown as NonNullable<ConstructorParameters<typeof Article>[0]["published"]>;

/**
 * An edition as an Article: to the public, cc the town's followers. Its summary is language-tagged, so
 * it goes out as `summaryMap`: Mastodon shows it under the title, Misskey does not make it a content
 * warning (core/fediverse/article.ts).
 */
export function editionArticle(c: Context<AppContext>, town: ActorTown, e: Edition): Article {
  const shape = articleOf({ baseUrl: c.data.config.baseUrl, slug: town.slug, name: town.name, date: e.date, subject: e.subject, html: e.html, weatherJson: e.weatherJson });
  return new Article({
    id: c.getObjectUri(Article, { identifier: town.slug, date: e.date }),
    attribution: c.getActorUri(town.slug),
    name: shape.name,
    summary: new LanguageString(shape.summary, "en"),
    content: shape.content,
    mediaType: "text/html",
    url: new URL(shape.url),
    published: instant(e.publishedAt),
    to: PUBLIC_COLLECTION,
    cc: c.getFollowersUri(town.slug),
  });
}

/** The Create that carries an edition's Article (its id: the Article's, with `#create`). */
export function editionCreate(c: Context<AppContext>, town: ActorTown, e: Edition): Create {
  const article = editionArticle(c, town, e);
  return new Create({
    id: new URL(`${article.id!.href}#create`),
    actor: c.getActorUri(town.slug),
    object: article,
    published: article.published,
    to: PUBLIC_COLLECTION,
    cc: c.getFollowersUri(town.slug),
  });
}

/**
 * The slug a WebFinger username names: `acct:Ely-Nevada@host` and `acct:ely%2Dnevada@host` are Ely
 * (people type handles in any case); a username that is not a slug's spelling is no town (404).
 */
function handleSlug(username: string): string | null {
  try {
    const slug = decodeURIComponent(username).toLowerCase();
    return isWellFormedSlug(slug) ? slug : null;
  } catch {
    return null;
  }
}

function registerActor(federation: Federation<AppContext>): void {
  federation.setActorDispatcher(ACTOR_PATH, async (c, identifier) => {
    const town = actorTown(c.data, identifier);
    if (!town) return null;
    const profile = actorProfile(c.data.config.baseUrl, town);
    const keys = await c.getActorKeyPairs(identifier);
    return new Service({
      id: c.getActorUri(identifier),
      preferredUsername: identifier,
      name: profile.name,
      summary: profile.summary,
      url: new URL(profile.url),
      icon: new Image({ url: new URL(c.data.config.baseUrl + ICON_PATH), mediaType: "image/png" }),
      inbox: c.getInboxUri(identifier),
      outbox: c.getOutboxUri(identifier),
      followers: c.getFollowersUri(identifier),
      endpoints: new Endpoints({ sharedInbox: c.getInboxUri() }),
      publicKey: keys[0]?.cryptographicKey,
      assertionMethods: keys.map((k) => k.multikey),
      manuallyApprovesFollowers: false,
      discoverable: true,
      // Editions are public: Mastodon leaves an actor's posts out of its search unless this says true.
      indexable: true,
    });
  }).setKeyPairsDispatcher(async (c, identifier) => {
    const town = actorTown(c.data, identifier);
    return town ? townKeyPairs(c.data, town.geoid) : [];
  }).mapHandle((_c, username) => handleSlug(username));
}

function registerCollections(federation: Federation<AppContext>): void {
  federation.setFollowersDispatcher(FOLLOWERS_PATH, (c, identifier, cursor) => {
    const town = actorTown(c.data, identifier);
    if (!town) return null;
    // No cursor: the whole collection at once, which is how Fedify reads it to fan a post out (a
    // town's followers are thousands at most); a cursor: one page, in the order of the actors' ids.
    const page = followersPage(c.data.db, town.geoid, cursor || null, cursor === null ? -1 : FOLLOWERS_PAGE);
    return {
      items: page.map((f) => ({ id: new URL(f.actorId), inboxId: new URL(f.inbox), endpoints: f.sharedInbox ? { sharedInbox: new URL(f.sharedInbox) } : null })),
      nextCursor: cursor !== null && page.length === FOLLOWERS_PAGE ? page[page.length - 1].actorId : null,
    };
  }).setFirstCursor(() => "")
    .setCounter((c, identifier) => {
      const town = actorTown(c.data, identifier);
      return town ? followerCount(c.data.db, town.geoid) : null;
    })
    // The count is public; who follows a town is not listed to anyone (readers' privacy).
    .authorize((c) => !new URL(c.request.url).searchParams.has("cursor"));

  federation.setOutboxDispatcher(OUTBOX_PATH, (c, identifier) => {
    const town = actorTown(c.data, identifier);
    if (!town) return null;
    return { items: recentTownEditions(c.data.db, town.geoid, OUTBOX_ITEMS).map((e) => editionCreate(c, town, e)) };
  }).setCounter((c, identifier) => {
    const town = actorTown(c.data, identifier);
    return town ? editionCount(c.data.db, town.geoid) : null;
  });

  federation.setObjectDispatcher(Article, ARTICLE_PATH, (c, { identifier, date }) => {
    const town = actorTown(c.data, identifier);
    const edition = town && townEdition(c.data.db, town.geoid, date);
    return town && edition ? editionArticle(c, town, edition) : null;
  });
}

function registerNodeInfo(federation: Federation<AppContext>): void {
  federation.setNodeInfoDispatcher(NODEINFO_PATH, (c) => {
    const totals = siteTotals(c.data.db);
    return {
      software: { name: "citydaily", version: "1.0.0", homepage: new URL(c.data.config.baseUrl) },
      protocols: ["activitypub"],
      usage: { users: { total: totals.towns }, localPosts: totals.editions, localComments: 0 },
      openRegistrations: false,
      metadata: { nodeName: "citydaily" },
    };
  });
}

/** The town actors, their collections and Articles, and NodeInfo (WebFinger follows from the actor dispatcher). */
export function registerDispatchers(federation: Federation<AppContext>): void {
  registerActor(federation);
  registerCollections(federation);
  registerNodeInfo(federation);
}
