import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// The authorization server's own limits, per client address, as an OAuth client meets them: the
// registration and token endpoints answer 429 with Retry-After and an OAuth error body (`slow_down`),
// and a client from another address is not held back by the first one.

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

/** A POST from `localAddress` (127.0.0.x are all this machine), as a client on another address sends it. */
function postFrom(localAddress: string, path: string, type: string, body: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.url}${path}`, { method: "POST", localAddress, agent: false, headers: { "Content-Type": type, "Content-Length": Buffer.byteLength(body) } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => { text += chunk; });
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, json: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const registration = (name: string) => JSON.stringify({
  client_name: name, redirect_uris: ["http://127.0.0.1:9/callback"], grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"], token_endpoint_auth_method: "none",
});
const register = (from: string, name: string) => postFrom(from, "/oauth/register", "application/json", registration(name));
const refreshFrom = (from: string, clientId: string) =>
  postFrom(from, "/oauth/token", "application/x-www-form-urlencoded", new URLSearchParams({ grant_type: "refresh_token", client_id: clientId, refresh_token: "not-a-token" }).toString());

describe("the authorization server's limits per client address", () => {
  let clientId = "";

  it("registers ten clients from one address in an hour, refuses the eleventh with 429 and Retry-After, and still registers from another", async () => {
    for (let i = 1; i <= 10; i++) {
      const made = await register("127.0.0.1", `Client ${i}`);
      expect(made.status).toBe(201);
      expect(made.json.client_name).toBe(`Client ${i}`);
      clientId = String(made.json.client_id);
    }
    const refused = await register("127.0.0.1", "Client 11");
    expect(refused.status).toBe(429);
    expect(refused.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(refused.headers["cache-control"]).toBe("no-store");
    // The bucket gives one back every 6 minutes: the client is told to wait about that long.
    const retry = Number(refused.headers["retry-after"]);
    expect(retry).toBeGreaterThan(300);
    expect(retry).toBeLessThanOrEqual(360);
    expect(refused.json).toEqual({ error: "slow_down", error_description: `too many client registrations from this address; retry in ${retry} s` });

    const elsewhere = await register("127.0.0.2", "Client from elsewhere");
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.json.client_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("answers sixty token requests a minute from one address, refuses the sixty-first, and not another address's", async () => {
    for (let i = 0; i < 60; i++) {
      const answered = await refreshFrom("127.0.0.3", clientId);
      expect(answered.status).toBe(400);
      expect(answered.json.error).toBe("invalid_grant"); // oidc-provider's own answer: the request went through
    }
    const refused = await refreshFrom("127.0.0.3", clientId);
    expect(refused.status).toBe(429);
    expect(refused.json.error).toBe("slow_down");
    expect(Number(refused.headers["retry-after"])).toBe(1);
    expect(refused.headers["access-control-expose-headers"]).toBe("Retry-After");

    const elsewhere = await refreshFrom("127.0.0.1", clientId);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.json.error).toBe("invalid_grant");
  });
});
