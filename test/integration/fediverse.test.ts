import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { Accept, Article, Create, Follow, PUBLIC_COLLECTION, Reject, Service, Undo } from "@fedify/fedify/vocab";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { until, type Instance } from "../helpers/fediverse-instance.ts";
import { ELY, startFediverseTown, type FediverseTown } from "../helpers/fediverse-town.ts";
import type { OpenMeteoServer } from "../helpers/open-meteo-server.ts";
import type { TestServer } from "../helpers/server.ts";

// A second, independent ActivityPub server on 127.0.0.1 (test/helpers/fediverse-instance.ts) stands in
// for a Mastodon instance. It finds Ely by WebFinger, follows it with a signed request, and records what
// reaches alice's inbox.

let meteo: OpenMeteoServer;
let server: TestServer;
let mastodon: Instance;
let town: FediverseTown;
beforeAll(async () => {
  town = await startFediverseTown();
  ({ meteo, server, mastodon } = town);
});
afterAll(async () => {
  await town?.stop();
});

const followers = async () => {
  const res = await server.get(`/fediverse/towns/${ELY}/followers`, { headers: { Accept: "application/activity+json" } });
  return ((await res.json()) as { totalItems: number }).totalItems;
};
const queueEmpty = () => (server.ctx.db.prepare("SELECT count(*) FROM fediverse_queue").pluck().get() === 0 ? true : undefined);

describe("Ely on the fediverse, followed from another server", () => {
  const alice = () => mastodon.federation.createContext(new URL(mastodon.origin));
  let follow: Follow;
  let ely: Service;

  it("is found by WebFinger and its actor is a Service with the town's name, page and picture", async () => {
    const host = new URL(server.url).host;
    const res = await server.get(`/.well-known/webfinger?resource=${encodeURIComponent(`acct:${ELY}@${host}`)}`);
    expect(res.status).toBe(200);
    const jrd = (await res.json()) as { subject: string; links: Array<{ rel: string; type?: string; href?: string }> };
    expect(jrd.subject).toBe(`acct:${ELY}@${host}`);
    const self = jrd.links.find((l) => l.rel === "self" && l.type === "application/activity+json");
    expect(self?.href).toBe(`${server.url}/fediverse/towns/${ELY}`);
    // A town without an edition has no actor yet, and the answer says whom it asked for.
    const unknown = await server.get(`/.well-known/webfinger?resource=${encodeURIComponent(`acct:nowhere-nevada@${host}`)}`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { detail: string }).detail).toBe(`No town here answers to acct:nowhere-nevada@${host}: a town has an actor, @{slug}@host, once it has an edition.`);
    const actor = await alice().lookupObject(self!.href!);
    expect(actor).toBeInstanceOf(Service);
    ely = actor as Service;
    expect(ely.name?.toString()).toBe("Ely Daily");
    expect(ely.url?.href).toBe(`${server.url}/${ELY}`);
    expect(ely.summary?.toString()).toContain("Ely, Nevada");
    const icon = await ely.getIcon();
    expect(icon?.url?.href).toBe(`${server.url}/fediverse/icon.png`);
    const png = await server.get("/fediverse/icon.png");
    expect(png.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await png.arrayBuffer()).subarray(1, 4).toString()).toBe("PNG");
    // An RSA key for HTTP signatures and an Ed25519 one for proofs, both kept.
    expect((await ely.getPublicKey())?.id?.href).toMatch(new RegExp(`^${server.url}/fediverse/towns/${ELY}#`));
    expect((server.ctx.db.prepare("SELECT count(*) FROM fediverse_keys").pluck().get())).toBe(1);
    // A browser asking for the actor is sent to the town's page.
    const page = await server.get(`/fediverse/towns/${ELY}`, { headers: { Accept: "text/html" }, redirect: "manual" });
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe(`${server.url}/${ELY}`);
    // ...with the headers every answer carries (a Response.redirect() could not take them).
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    expect(page.headers.get("x-request-id")).toBeTruthy();
  });

  it("accepts a signed Follow with a signed Accept, and counts the follower", async () => {
    const c = alice();
    follow = new Follow({ id: new URL(`${mastodon.origin}/users/alice#follows/1`), actor: c.getActorUri("alice"), object: ely.id });
    await c.sendActivity({ identifier: "alice" }, ely, follow, { immediate: true });
    const accept = await until("the Accept", () => mastodon.received.find((r) => r.activity instanceof Accept));
    expect(accept.activity.actorId?.href).toBe(ely.id!.href);
    expect(accept.activity.objectId?.href).toBe(follow.id!.href);
    expect(accept.keyId).toBe(`${server.url}/fediverse/towns/${ELY}#main-key`);
    expect(await followers()).toBe(1);
    // Who follows is not listed, only how many.
    const page = await server.get(`/fediverse/towns/${ELY}/followers?cursor=`, { headers: { Accept: "application/activity+json" } });
    expect(page.status).toBe(401);
  });

  it("receives the next morning's edition as a signed Create(Article) with the edition's URL", async () => {
    meteo.configure({ today: "2026-11-23" });
    const before = mastodon.received.length;
    expect((await runMorning(server.ctx, { now: new Date("2026-11-23T16:00:00.000Z") })).composed).toBe(1);
    const got = await until("the Create", () => mastodon.received.slice(before).find((r) => r.activity instanceof Create));
    expect(got.keyId).toBe(`${server.url}/fediverse/towns/${ELY}#main-key`);
    const create = got.activity as Create;
    expect(create.toIds.map((u) => u.href)).toContain(PUBLIC_COLLECTION.href);
    expect(create.ccIds.map((u) => u.href)).toEqual([`${server.url}/fediverse/towns/${ELY}/followers`]);
    const article = (await create.getObject()) as Article;
    expect(article).toBeInstanceOf(Article);
    const edition = server.ctx.db.prepare("SELECT subject, date FROM editions WHERE date = '2026-11-23'").get() as { subject: string; date: string };
    expect(article.name?.toString()).toBe(edition.subject);
    expect(article.url).toBeInstanceOf(URL);
    expect((article.url as URL).href).toBe(`${server.url}/${ELY}/2026-11-23`);
    // The lead and the forecast in a sentence (here the lead is the forecast, not said twice); the
    // edition's opening in HTML, without counted links.
    expect(edition.subject).toBe("Ely, Nov 23: Heavy snow, high 30°F");
    expect(article.summary?.toString()).toBe("Heavy snow, high 30°F.");
    const content = article.content?.toString() ?? "";
    expect(content.startsWith("<p><strong>Ely, Nov 23: Heavy snow, high 30°F</strong></p>")).toBe(true);
    expect(content).toContain("<p><strong>Weather</strong></p>");
    expect(content).toContain("Good morning, Ely, Nevada.");
    expect(content).not.toContain("/go/");
    expect(content).toContain(`<a href="${server.url}/${ELY}/2026-11-23">Read the whole edition of Ely Daily</a>`);
    // The Article's own id answers too (Mastodon may fetch it).
    const fetched = await server.get(new URL(article.id!.href).pathname, { headers: { Accept: "application/activity+json" } });
    expect(((await fetched.json()) as { name: string }).name).toBe(edition.subject);
    // One delivery, to the server's shared inbox.
    expect(mastodon.received.slice(before).filter((r) => r.activity instanceof Create)).toHaveLength(1);
  });

  it("shapes the Article for Mastodon and Misskey, writes Public in full and names the service on the delivery", async () => {
    const delivered = mastodon.requests.find((r) => (JSON.parse(r.body) as { type: string }).type === "Create")!;
    // The delivery says who sent it: the service and its address, not undici's `node`.
    expect(delivered.userAgent).toMatch(new RegExp(`^citydaily \\(Fedify/[\\d.]+; Node\\.js/[\\d.]+; \\+${server.url.replace(/[.]/g, "\\.")}/\\)$`));
    type Doc = { to: unknown; cc: unknown; summary?: string; summaryMap?: Record<string, string>; content: string; name: string };
    const create = JSON.parse(delivered.body) as { to: unknown; object: Doc };
    const res = await server.get(`/fediverse/towns/${ELY}/editions/2026-11-23`, { headers: { Accept: "application/activity+json" } });
    const dereferenced = (await res.json()) as Doc;
    for (const article of [create.object, dereferenced]) {
      // Mastodon shows name, summary and link; Misskey would make a plain `summary` a content warning
      // and reads only `summary`, so it goes language-tagged (Mastodon reads `summaryMap`).
      expect(article.summary).toBeUndefined();
      expect(article.summaryMap).toEqual({ en: "Heavy snow, high 30°F." });
      // Misskey shows the content without the name, and flattens headings and tables: none are left.
      expect(article.content.startsWith(`<p><strong>${article.name}</strong></p>`)).toBe(true);
      expect(article.content).not.toMatch(/<h[1-6]|<table/);
      expect(article.content).toContain("<p>Mon, Nov 23: Heavy snow, High (°F) 30, Low (°F) 18, Precipitation (%) 93<br>");
      expect([article.to].flat()).toEqual(["https://www.w3.org/ns/activitystreams#Public"]);
    }
    expect([create.to].flat()).toEqual(["https://www.w3.org/ns/activitystreams#Public"]);
    // The actor says its posts may be searched (Mastodon reads a missing `indexable` as false).
    const actor = (await (await server.get(`/fediverse/towns/${ELY}`, { headers: { Accept: "application/activity+json" } })).json()) as { indexable?: boolean; discoverable?: boolean };
    expect(actor.indexable).toBe(true);
    expect(actor.discoverable).toBe(true);
  });

  it("after an Undo(Follow), the morning after sends nothing", async () => {
    const c = alice();
    await c.sendActivity({ identifier: "alice" }, ely, new Undo({ id: new URL(`${mastodon.origin}/users/alice#undo/1`), actor: c.getActorUri("alice"), object: follow }), { immediate: true });
    expect(await followers()).toBe(0);
    const before = mastodon.received.length;
    expect((await runMorning(server.ctx, { now: new Date("2026-11-24T16:00:00.000Z") })).composed).toBe(1);
    // Nothing was marked for the fediverse and nothing is queued: wait out a few worker ticks to be sure.
    expect(server.ctx.db.prepare("SELECT count(*) FROM fediverse_posts p JOIN editions e ON e.id = p.edition_id WHERE e.date = '2026-11-24'").pluck().get()).toBe(0);
    await new Promise((r) => setTimeout(r, 300));
    await until("an empty queue", queueEmpty);
    expect(mastodon.received.slice(before)).toEqual([]);
  });

  it("refuses a Follow from an instance staff blocked (npm run admin) with a Reject, and stores nothing", async () => {
    const admin = (...args: string[]) => promisify(execFile)(process.execPath, ["scripts/admin.ts", "fediverse", ...args], { env: { ...process.env, DATA_DIR: server.dataDir, BASE_URL: server.url, LOG_LEVEL: "silent" } });
    expect((await admin("block", mastodon.host, "--reason", "spam")).stdout).toBe(`blocked ${mastodon.host}; 0 follower(s) removed\n`);
    expect((await admin("blocks")).stdout).toContain(`${mastodon.host}  `);
    const c = alice();
    const again = new Follow({ id: new URL(`${mastodon.origin}/users/alice#follows/2`), actor: c.getActorUri("alice"), object: ely.id });
    await c.sendActivity({ identifier: "alice" }, ely, again, { immediate: true });
    const reject = await until("the Reject", () => mastodon.received.find((r) => r.activity instanceof Reject));
    expect(reject.activity.objectId?.href).toBe(again.id!.href);
    expect(await followers()).toBe(0);
    expect((await admin("unblock", mastodon.host)).stdout).toBe(`unblocked ${mastodon.host}\n`);
  });

  it("is named on the town's pages: an ActivityPub alternate and a line with the handle, in the page and its footer", async () => {
    const handle = `@${ELY}@${new URL(server.url).host}`;
    const page = await (await server.get(`/${ELY}`)).text();
    expect(page).toContain(`<link rel="alternate" type="application/activity+json" href="${server.url}/fediverse/towns/${ELY}">`);
    expect(page).toMatch(new RegExp(`<p class="fediverse-link">Follow on the fediverse: <strong translate="no">${handle}</strong>`));
    expect(page).toMatch(new RegExp(`<footer[\\s\\S]*Follow on the fediverse: <span translate="no">${handle}</span>`));
    const edition = await (await server.get(`/${ELY}/2026-11-23`)).text();
    expect(edition).toMatch(new RegExp(`<footer[\\s\\S]*Follow on the fediverse: <span translate="no">${handle}</span>`));
    // A town without a newsletter has no actor, and its page names none.
    const other = await (await server.get("/reno-nevada")).text();
    expect(other).not.toContain("fediverse");
    const none = await server.get("/fediverse/towns/reno-nevada", { headers: { Accept: "application/activity+json" } });
    expect(none.status).toBe(404);
  });

  it("answers NodeInfo", async () => {
    const links = (await (await server.get("/.well-known/nodeinfo")).json()) as { links: Array<{ href: string }> };
    const info = (await (await fetch(links.links[0].href)).json()) as { software: { name: string }; protocols: string[]; usage: { users: { total: number }; localPosts: number } };
    expect(info.software.name).toBe("citydaily");
    expect(info.protocols).toEqual(["activitypub"]);
    expect(info.usage.users.total).toBe(1);
    expect(info.usage.localPosts).toBe(3);
  });
  it("posts to every server among a town's followers, past the collection's page of 500", async () => {
    // 1,200 followers on two servers' shared inboxes; the second's only from the 1,001st follower on.
    const geoid = server.ctx.db.prepare("SELECT geoid FROM places WHERE slug = ?").pluck().get(ELY) as string;
    const insert = server.ctx.db.prepare("INSERT INTO fediverse_followers (place_geoid, actor_id, host, inbox, shared_inbox, created_at) VALUES (?, ?, ?, ?, ?, ?)");
    server.ctx.db.transaction(() => {
      for (let i = 0; i < 1200; i++) {
        const shared = `${mastodon.origin}/inbox?s=${i < 1000 ? "early" : "late"}`;
        insert.run(geoid, `https://s.example/users/u${String(i).padStart(4, "0")}`, mastodon.host, `${mastodon.origin}/users/u${i}/inbox`, shared, "2026-11-25T00:00:00Z");
      }
    })();
    const before = mastodon.posts.length;
    expect((await runMorning(server.ctx, { now: new Date("2026-11-25T16:00:00.000Z") })).composed).toBe(1);
    const posted = await until("both servers' deliveries", () => {
      const got = mastodon.posts.slice(before).sort();
      return got.length >= 2 ? got : undefined;
    });
    expect(posted).toEqual(["/inbox?s=early", "/inbox?s=late"]);
  });
});
