import { expect } from "vitest";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { startInstance, type Instance } from "./fediverse-instance.ts";
import { startOpenMeteoServer, type OpenMeteoServer } from "./open-meteo-server.ts";
import { addSubscriber } from "./seed.ts";
import { startTestServer, type TestServer } from "./server.ts";

export const ELY = "ely-nevada";
const NOW = "2026-11-22T16:00:00.000Z";

export interface FediverseTown { meteo: OpenMeteoServer; server: TestServer; mastodon: Instance; stop(): Promise<void> }

/**
 * A server pinned to a Sunday morning with Ely's edition out (a reader, the recorded forecast), its
 * fediverse open to private addresses, and a second ActivityPub server (the Mastodon stand-in) beside it.
 */
export async function startFediverseTown(env: Record<string, string> = {}): Promise<FediverseTown> {
  const meteo = await startOpenMeteoServer({ today: NOW.slice(0, 10) });
  const server = await startTestServer({ OPEN_METEO_URL: meteo.url, NOW, MAIL_SENDER: "off", FEDERATION_ALLOW_PRIVATE: "true", FEDERATION_POLL_MS: "25", ...env });
  addSubscriber(server.ctx.db, ELY, "reader@example.org");
  expect((await runMorning(server.ctx, { now: new Date(NOW) })).composed).toBe(1);
  const mastodon = await startInstance();
  return {
    meteo, server, mastodon,
    async stop() {
      await server.stop();
      await mastodon.close();
      await meteo.close();
    },
  };
}
