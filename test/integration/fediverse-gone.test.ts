import { Accept, Create, Follow, Service, type Article } from "@fedify/fedify/vocab";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { startInstance, until, type Instance } from "../helpers/fediverse-instance.ts";
import { startOpenMeteoServer, type OpenMeteoServer } from "../helpers/open-meteo-server.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// Two independent ActivityPub servers on 127.0.0.1 follow Ely; one of them then answers 410 Gone at its
// shared inbox, as a server does once the account (or the whole instance) is gone. The morning's delivery
// there fails for good, its follower is removed, and the next morning posts only to the healthy server.

const ELY = "ely-nevada";
let meteo: OpenMeteoServer;
let server: TestServer;
let healthy: Instance;
let doomed: Instance;
const logged: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  meteo = await startOpenMeteoServer({ today: "2026-11-22" });
  server = await startTestServer({ OPEN_METEO_URL: meteo.url, NOW: "2026-11-22T16:00:00.000Z", MAIL_SENDER: "off", FEDERATION_ALLOW_PRIVATE: "true", FEDERATION_POLL_MS: "25" });
  addSubscriber(server.ctx.db, ELY, "reader@example.org");
  expect((await runMorning(server.ctx, { now: new Date("2026-11-22T16:00:00.000Z") })).composed).toBe(1);
  [healthy, doomed] = await Promise.all([startInstance(), startInstance()]);
  server.ctx.log = pino({ level: "warn" }, { write: (line: string) => void logged.push(JSON.parse(line)) });
});
afterAll(async () => {
  await server?.stop();
  await healthy?.close();
  await doomed?.close();
  await meteo?.close();
});

const stored = () => server.ctx.db.prepare("SELECT p.slug, f.actor_id AS actorId FROM fediverse_followers f JOIN places p ON p.geoid = f.place_geoid ORDER BY p.slug, f.actor_id").all() as Array<{ slug: string; actorId: string }>;
const creates = (instance: Instance, from: number) => instance.received.slice(from).filter((r) => r.activity instanceof Create);
const queueEmpty = () => (server.ctx.db.prepare("SELECT count(*) FROM fediverse_queue").pluck().get() === 0 ? true : undefined);

async function follow(instance: Instance): Promise<void> {
  const c = instance.federation.createContext(new URL(instance.origin));
  const ely = (await c.lookupObject(`${server.url}/fediverse/towns/${ELY}`)) as Service;
  await c.sendActivity({ identifier: "alice" }, ely, new Follow({ id: new URL(`${instance.origin}/users/alice#follows/1`), actor: c.getActorUri("alice"), object: ely.id }), { immediate: true });
  await until("the Accept", () => instance.received.find((r) => r.activity instanceof Accept));
}

describe("a follower whose server answers 410 Gone", () => {
  it("is removed after the morning's failed delivery, with one log line, while the healthy server gets the edition", async () => {
    await follow(healthy);
    await follow(doomed);
    const aliceHealthy = `${healthy.origin}/users/alice`;
    const aliceDoomed = `${doomed.origin}/users/alice`;
    // Two follows of another town stored as a Follow would have stored them: the same gone actor at the
    // same shared inbox (unreachable for every town), and another actor there this delivery was not for.
    const reno = server.ctx.db.prepare("SELECT geoid FROM places WHERE slug = 'reno-nevada'").pluck().get() as string;
    const insert = server.ctx.db.prepare("INSERT INTO fediverse_followers (place_geoid, actor_id, host, inbox, shared_inbox, created_at) VALUES (?, ?, ?, ?, ?, ?)");
    insert.run(reno, aliceDoomed, doomed.host, `${aliceDoomed}/inbox`, `${doomed.origin}/inbox`, "2026-11-22T17:00:00Z");
    insert.run(reno, `${doomed.origin}/users/bob`, doomed.host, `${doomed.origin}/users/bob/inbox`, `${doomed.origin}/inbox`, "2026-11-22T17:00:00Z");
    expect(stored()).toEqual([
      { slug: ELY, actorId: aliceHealthy }, { slug: ELY, actorId: aliceDoomed },
      { slug: "reno-nevada", actorId: aliceDoomed }, { slug: "reno-nevada", actorId: `${doomed.origin}/users/bob` },
    ].sort((a, b) => (a.slug + a.actorId).localeCompare(b.slug + b.actorId)));

    doomed.gone.add("/inbox");
    meteo.configure({ today: "2026-11-23" });
    const [healthyBefore, doomedPosts] = [healthy.received.length, doomed.posts.length];
    expect((await runMorning(server.ctx, { now: new Date("2026-11-23T16:00:00.000Z") })).composed).toBe(1);
    const got = await until("the healthy server's Create", () => creates(healthy, healthyBefore)[0]);
    expect(((await (got.activity as Create).getObject()) as Article).url).toEqual(new URL(`${server.url}/${ELY}/2026-11-23`));
    await until("the gone follower's removal", () => (stored().some((f) => f.actorId === aliceDoomed) ? undefined : true));

    // Ely's follower there and the same actor's follow of Reno are gone; bob, whom no delivery failed for, stays.
    expect(stored()).toEqual([{ slug: ELY, actorId: aliceHealthy }, { slug: "reno-nevada", actorId: `${doomed.origin}/users/bob` }]);
    const lines = logged.filter((l) => l.msg === "fediverse inbox gone: its followers there removed");
    expect(lines).toEqual([expect.objectContaining({ level: 40, inbox: `${doomed.origin}/inbox`, town: ELY, status: 410, removed: 2 })]);
    // One attempt, not retried (no task left in the queue, not even one delayed by the backoff): its two
    // POSTs are Fedify's "double knock", the second signed with the other HTTP signature spec.
    await until("an empty queue", queueEmpty);
    expect(doomed.posts.slice(doomedPosts)).toEqual(["/inbox", "/inbox"]);
    const count = await server.get(`/fediverse/towns/${ELY}/followers`, { headers: { Accept: "application/activity+json" } });
    expect(((await count.json()) as { totalItems: number }).totalItems).toBe(1);
  });

  it("the next morning, the healthy follower receives the Create(Article) and the gone server is not tried", async () => {
    meteo.configure({ today: "2026-11-24" });
    const [healthyBefore, doomedPosts] = [healthy.received.length, doomed.posts.length];
    expect((await runMorning(server.ctx, { now: new Date("2026-11-24T16:00:00.000Z") })).composed).toBe(1);
    const got = await until("the healthy server's Create", () => creates(healthy, healthyBefore)[0]);
    expect(got.keyId).toBe(`${server.url}/fediverse/towns/${ELY}#main-key`);
    expect(((await (got.activity as Create).getObject()) as Article).url).toEqual(new URL(`${server.url}/${ELY}/2026-11-24`));
    await until("an empty queue", queueEmpty);
    expect(doomed.posts.slice(doomedPosts)).toEqual([]);
    expect(logged.filter((l) => l.msg === "fediverse inbox gone: its followers there removed")).toHaveLength(1);
  });
});
