import { signRequest } from "@fedify/fedify";
import { Follow, Reject, Service } from "@fedify/fedify/vocab";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blockFediverseInstance } from "../../src/services/fediverse/blocks.ts";
import { until, type Instance } from "../helpers/fediverse-instance.ts";
import { ELY, startFediverseTown, type FediverseTown } from "../helpers/fediverse-town.ts";
import type { TestServer } from "../helpers/server.ts";

// What reaches the server's fediverse paths from someone who is not a well-behaved server: bodies
// past the limit, nesting that overflows JSON-LD, signatures that do not bind the body, Follow
// floods, another spelling of a blocked host, and odd WebFinger resources. The server runs in this
// process: what it read of a body is told by how much of it the client had sent when the answer came.

const MB = 1024 * 1024;
const ADMIN = "admin-token-of-this-test";
let server: TestServer;
let mastodon: Instance;
let town: FediverseTown;
beforeAll(async () => {
  town = await startFediverseTown({ ADMIN_TOKEN: ADMIN });
  ({ server, mastodon } = town);
});
afterAll(async () => {
  await town?.stop();
});

/** POSTs `mb` megabytes chunked (no Content-Length); says the answer, how much had been sent by then, and the process's growth. */
async function postChunked(path: string, mb: number, headers: Record<string, string>) {
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent >= mb * MB) return c.close();
      sent += 64 * 1024;
      c.enqueue(new Uint8Array(64 * 1024).fill(0x61));
    },
  });
  const rss = process.memoryUsage().rss;
  let peak = rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  try {
    const res = await fetch(server.url + path, { method: "POST", body, duplex: "half", headers } as RequestInit);
    const sentAtAnswer = sent;
    await res.arrayBuffer();
    return { status: res.status, sentMb: sentAtAnswer / MB, grewMb: (peak - rss) / MB };
  } finally {
    clearInterval(sampler);
  }
}

describe("request bodies", () => {
  it("refuses a 64 MB chunked body on every route that reads one, having read no more than its limit", async () => {
    const json = { "Content-Type": "application/json" };
    const form = { "Content-Type": "application/x-www-form-urlencoded" };
    const routes: Array<[string, Record<string, string>]> = [
      ["/fediverse/inbox", { "Content-Type": "application/activity+json" }],
      [`/fediverse/towns/${ELY}/inbox`, { "Content-Type": "application/activity+json" }],
      [`/fediverse/towns/${ELY}`, { "Content-Type": "application/activity+json" }],
      ["/api/subscribe", json],
      ["/mcp", { ...json, Accept: "application/json, text/event-stream" }],
      ["/oauth/register", json],
      ["/oauth/token", form],
      ["/webhooks/payments", json],
      ["/webhooks/mail/arf", { "Content-Type": "message/rfc822", Authorization: `Bearer ${ADMIN}` }],
      ["/subscribe", form],
      [`/advertise/${ELY}`, form],
      [`/lease/${ELY}`, form],
      ["/operator/sign-in", form],
    ];
    for (const [path, headers] of routes) {
      const got = await postChunked(path, 64, headers);
      // Answered (413, or the route's own 4xx), after the client had sent a few MB at most (socket
      // buffers and the limit), and the process did not grow by the body: before, the fediverse's
      // inboxes read all 64 MB first (and grew by 250 MB).
      expect({ path, status: got.status >= 400 && got.status < 500 ? "4xx" : got.status }).toEqual({ path, status: "4xx" });
      expect({ path, sentBelow16Mb: got.sentMb < 16 }).toEqual({ path, sentBelow16Mb: true });
      expect({ path, grewBelow48Mb: got.grewMb < 48 }).toEqual({ path, grewBelow48Mb: true });
    }
    expect((await postChunked("/fediverse/inbox", 2, { "Content-Type": "application/activity+json" })).status).toBe(413);
  });

  it("answers an unsigned Follow of 400,000 nested arrays 400, before any JSON-LD work", async () => {
    const depth = 400_000;
    const body = `{"@context":"https://www.w3.org/ns/activitystreams","type":"Follow","actor":"${mastodon.origin}/users/alice","object":${"[".repeat(depth)}${"]".repeat(depth)}}`;
    for (const path of ["/fediverse/inbox", `/fediverse/towns/${ELY}/inbox`]) {
      const res = await server.post(path, body, { headers: { "Content-Type": "application/activity+json" } });
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      expect(((await res.json()) as { code: string; detail: string })).toMatchObject({ code: "invalid_json", detail: "An activity nests arrays and objects at most 32 deep." });
    }
  });
});

describe("signatures, blocks and Follow floods", () => {
  const inbox = () => `${server.url}/fediverse/towns/${ELY}/inbox`;
  const aliceKey = () => new URL(`${mastodon.origin}/users/alice#main-key`);
  let n = 0;
  const followBody = async (origin = mastodon.origin) =>
    JSON.stringify(await new Follow({ id: new URL(`${origin}/users/alice#follows/${++n}`), actor: new URL(`${origin}/users/alice`), object: new URL(`${server.url}/fediverse/towns/${ELY}`) }).toJsonLd());
  const followers = () => server.ctx.db.prepare("SELECT count(*) FROM fediverse_followers").pluck().get() as number;

  it("refuses an RFC 9421 signature that does not cover content-digest, and accepts one that does", async () => {
    const body = await followBody();
    const headers = { "Content-Type": "application/activity+json" };
    // Signed as a request without a body (so content-digest is not among the covered components), sent with one.
    const unbound = await signRequest(new Request(inbox(), { method: "POST", headers }), mastodon.keys[0].privateKey, aliceKey(), { spec: "rfc9421", body: null });
    expect(unbound.headers.get("signature-input")).not.toContain("content-digest");
    const refused = await fetch(inbox(), { method: "POST", headers: unbound.headers, body });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { detail: string }).detail).toContain("does not cover content-digest");
    expect(followers()).toBe(0);
    // The same Follow signed over its body is taken.
    const bound = await signRequest(new Request(inbox(), { method: "POST", headers, body }), mastodon.keys[0].privateKey, aliceKey(), { spec: "rfc9421" });
    expect(bound.headers.get("signature-input")).toContain('"content-digest"');
    expect((await fetch(bound)).status).toBe(202);
    expect(followers()).toBe(1);
  });

  it("refuses an unsigned activity 401, before reading it as JSON-LD", async () => {
    const res = await server.post(`/fediverse/towns/${ELY}/inbox`, await followBody(), { headers: { "Content-Type": "application/activity+json" } });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe("unauthorized");
  });

  it("keeps a blocked server out whatever spelling of its host the block or the actor uses", async () => {
    const port = new URL(mastodon.origin).port;
    // The same server, reached as `localhost`; the block is written `LOCALHOST.:port`.
    expect(blockFediverseInstance(server.ctx, `LOCALHOST.:${port}`, "test").host).toBe(`localhost:${port}`);
    const c = mastodon.federation.createContext(new URL(`http://localhost:${port}`));
    const ely = (await c.lookupObject(`${server.url}/fediverse/towns/${ELY}`)) as Service;
    const follow = new Follow({ id: new URL(`http://localhost:${port}/users/alice#follows/blocked`), actor: c.getActorUri("alice"), object: ely.id });
    await c.sendActivity({ identifier: "alice" }, ely, follow, { immediate: true });
    const reject = await until("the Reject", () => mastodon.received.find((r) => r.activity instanceof Reject));
    expect(reject.activity.objectId?.href).toBe(follow.id!.href);
    expect(server.ctx.db.prepare("SELECT count(*) FROM fediverse_followers WHERE host LIKE 'localhost%'").pluck().get()).toBe(0);
  });

  it("answers a flood of Follows from one actor 429 with Retry-After past its allowance", async () => {
    const statuses: number[] = [];
    let refused: Response | undefined;
    for (let i = 0; i < 25 && !refused; i++) {
      const body = await followBody();
      const signed = await signRequest(new Request(inbox(), { method: "POST", headers: { "Content-Type": "application/activity+json" }, body }), mastodon.keys[0].privateKey, aliceKey(), { spec: "rfc9421" });
      const res = await fetch(signed);
      statuses.push(res.status);
      if (res.status === 429) refused = res;
      else await res.arrayBuffer();
    }
    // 20 Follows from an actor in a burst (one taken by the test before), then one every 30 s.
    expect(statuses).toEqual([...Array(19).fill(202), 429]);
    expect(Number(refused!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await refused!.json()) as { code: string; detail: string })).toMatchObject({ code: "rate_limited" });
  });
});

describe("WebFinger", () => {
  it("answers odd resources with a problem, 400 or 404, never a 500", async () => {
    const host = new URL(server.url).host;
    const cases: Array<[string | null, number]> = [
      [`acct:${ELY}@${host}`, 200],
      [`acct:Ely-Nevada@${host.toUpperCase()}`, 200],
      [`acct:ely%2Dnevada@${host}`, 200],
      [`acct:${ELY}@@${host}`, 404],
      [`acct:${ELY}@${host}@evil.example`, 404],
      [`acct:${ELY}@evil.example`, 404],
      [`acct:${ELY}`, 404],
      ["acct:@", 404],
      ["acct:%E0%A4%A@" + host, 404],
      ["mailto:someone@example.org", 404],
      ["https://evil.example/users/ely-nevada", 404],
      [`acct:${"a".repeat(2000)}@${host}`, 400],
      ["", 400],
      ["%", 400],
      ["http://[::1", 400],
      [null, 400],
    ];
    for (const [resource, status] of cases) {
      const res = await server.get(`/.well-known/webfinger${resource === null ? "" : `?resource=${encodeURIComponent(resource)}`}`);
      expect({ resource, status: res.status }).toEqual({ resource, status });
      if (status !== 200) expect({ resource, type: res.headers.get("content-type") }).toEqual({ resource, type: "application/problem+json" });
      else expect(((await res.json()) as { links: Array<{ href: string }> }).links[0].href).toBe(`${server.url}/fediverse/towns/${ELY}`);
    }
    const two = await server.get(`/.well-known/webfinger?resource=acct:${ELY}@${host}&resource=acct:x@${host}`);
    expect(two.status).toBe(400);
  });
});
