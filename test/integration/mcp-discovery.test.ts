import fs from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from "@modelcontextprotocol/client";
import { buildSite } from "../../src/services/site/publish.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// Discovery of the MCP server from the site's origin alone: the AI Catalog leads to the Server
// Card, the card to /mcp; the RFC 9727 API catalog lists /mcp too; llms.txt and /developers point
// at the card. The card is validated against the extension's published schema (vendored).

const SCHEMA = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "../fixtures/mcp-server-card/schema.json"), "utf8")) as { $defs: Record<string, unknown> };

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ MAIL_SENDER: "off" });
  await buildSite(server.ctx);
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

function validator() {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  return ajv.compile({ ...SCHEMA, $ref: "#/$defs/ServerCard" });
}

describe("MCP discovery", () => {
  it("serves a server card that validates against the extension's schema, at both locations", async () => {
    const validate = validator();
    for (const p of ["/mcp/server-card", "/.well-known/mcp/server-card.json"]) {
      const res = await server.get(p, { headers: { Accept: "application/mcp-server-card+json" } });
      expect(res.status, p).toBe(200);
      expect(res.headers.get("content-type"), p).toBe("application/mcp-server-card+json");
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("cache-control")).toBe("public, max-age=3600");
      const card = await res.json() as { name: string; version: string; remotes: Array<{ type: string; url: string; supportedProtocolVersions: string[] }> };
      expect(validate(card), JSON.stringify(validate.errors)).toBe(true);
      expect(card.remotes).toEqual([{ type: "streamable-http", url: `${server.url}/mcp`, supportedProtocolVersions: expect.arrayContaining(["2025-11-25", "2026-07-28"]) }]);
      // A 304 for a client that holds it.
      const again = await server.get(p, { headers: { "If-None-Match": res.headers.get("etag")! } });
      expect(again.status).toBe(304);
    }
  });

  it("the schema check fails a card that breaks it (the test can fail)", () => {
    const validate = validator();
    expect(validate({ $schema: "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json", name: "no slash", version: "1", description: "x" })).toBe(false);
  });

  it("a client that knows only the site's origin finds /mcp through the AI catalog and connects", async () => {
    const origin = server.url;
    const catalogRes = await fetch(`${origin}/.well-known/ai-catalog.json`);
    expect(catalogRes.headers.get("content-type")).toBe("application/ai-catalog+json");
    const catalog = await catalogRes.json() as { specVersion: string; entries: Array<{ identifier: string; type: string; url: string }> };
    expect(catalog.specVersion).toBe("1.0");
    const entry = catalog.entries.find((e) => e.type === "application/mcp-server-card+json");
    expect(entry?.identifier).toMatch(/^urn:air:[^:]+:mcp:citydaily$/);
    const card = await (await fetch(entry!.url, { headers: { Accept: "application/mcp-server-card+json" } })).json() as { name: string; version: string; remotes: Array<{ url: string }> };
    const client = new V2Client({ name: "origin-only", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(new V2Transport(new URL(card.remotes[0].url)));
    try {
      // What the card said holds once connected.
      expect(client.getServerVersion()).toMatchObject({ name: "citydaily", version: card.version });
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("find_place");
    } finally {
      await client.close();
    }
  });

  it("the RFC 9727 API catalog lists the MCP endpoint with its card", async () => {
    const linkset = (await (await server.get("/.well-known/api-catalog")).json()) as { linkset: Array<{ anchor: string; "service-desc": Array<{ href: string; type: string }> }> };
    const mcp = linkset.linkset.find((l) => l.anchor === `${server.url}/mcp`);
    expect(mcp?.["service-desc"]).toEqual([{ href: `${server.url}/mcp/server-card`, type: "application/mcp-server-card+json" }]);
  });

  it("llms.txt and /developers point at the card and the AI catalog", async () => {
    for (const p of ["/llms.txt", "/developers", "/developers.md"]) {
      const text = await (await server.get(p)).text();
      expect(text, p).toContain(`${server.url}/mcp/server-card`);
      expect(text, p).toContain(`${server.url}/.well-known/ai-catalog.json`);
    }
  });
});
