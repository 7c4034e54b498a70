import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { PROJECT_ROOT } from "../../config/paths.ts";
import type { AppContext } from "./context.ts";

// Machine-readable discovery: the RFC 9727 API catalog and the agent skills index.

export const API_CATALOG_PROFILE = "https://www.rfc-editor.org/info/rfc9727";
export const LINKSET_TYPE = `application/linkset+json; profile="${API_CATALOG_PROFILE}"`;

/** The Link header that points at the catalog (on the catalog itself and the home page). */
export const apiCatalogLink = (base: string) => `<${base}/.well-known/api-catalog>; rel="api-catalog"`;

/** What every page's `Link` header names for agents: the API catalog and the MCP server card (the markdown twin is added per page). */
export const pageDiscoveryLinks = (base: string) => [apiCatalogLink(base), `<${base}/mcp/server-card>; rel="service-desc"; type="application/mcp-server-card+json"`];

/** `GET /api` and `/api/v1`, the API catalog's anchors: where the API's description, documentation and status are. */
export function apiIndex(base: string, anchor: string) {
  return {
    api: anchor, apiVersion: "v1",
    openapi: `${base}/openapi.json`, documentation: `${base}/developers`, markdown: `${base}/developers.md`,
    status: `${base}/api/status`, catalog: `${base}/.well-known/api-catalog`, mcp: `${base}/mcp`,
  };
}

/**
 * The API catalog (RFC 9727): a linkset (RFC 9264) with one entry per API base, anchored at it, that
 * links its machine description (`service-desc`), human documentation (`service-doc`) and `status`.
 */
export function apiCatalog(base: string) {
  const entry = (anchor: string) => ({
    anchor,
    "service-desc": [{ href: `${base}/openapi.json`, type: "application/vnd.oai.openapi+json;version=3.1" }],
    "service-doc": [
      { href: `${base}/developers`, type: "text/html" },
      { href: `${base}/developers.md`, type: "text/markdown" },
    ],
    status: [{ href: `${base}/api/status`, type: "application/json" }],
  });
  // The MCP endpoint is an API of the site too: its machine description is the server card.
  const mcp = {
    anchor: `${base}/mcp`,
    "service-desc": [{ href: `${base}/mcp/server-card`, type: "application/mcp-server-card+json" }],
    "service-doc": [
      { href: `${base}/mcp`, type: "text/html" },
      { href: `${base}/developers#mcp`, type: "text/html" },
    ],
  };
  return { linkset: [entry(`${base}/api`), entry(`${base}/api/v1`), mcp] };
}

/** The agent skills discovery format (Cloudflare's draft RFC, v0.2.0). */
export const AGENT_SKILLS_SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";
const SKILLS_DIR = path.join(PROJECT_ROOT, "content/skills");
const SKILL_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

export interface Skill {
  name: string;
  description: string;
  /** The SKILL.md exactly as served (base URL filled in). */
  body: string;
}

function frontMatterField(md: string, field: string): string | undefined {
  const head = /^---\n([\s\S]*?)\n---\n/.exec(md)?.[1];
  return head?.split("\n").find((l) => l.startsWith(`${field}:`))?.slice(field.length + 1).trim();
}

/** The SKILL.md documents of content/skills/, in name order, with `{{BASE_URL}}` filled in. */
export function listSkills(ctx: AppContext): Skill[] {
  return fs.readdirSync(SKILLS_DIR).filter((n) => SKILL_NAME.test(n)).sort().map((dir) => {
    const body = fs.readFileSync(path.join(SKILLS_DIR, dir, "SKILL.md"), "utf8").replaceAll("{{BASE_URL}}", ctx.config.baseUrl);
    const name = frontMatterField(body, "name");
    const description = frontMatterField(body, "description");
    if (name !== dir || !description) throw new Error(`content/skills/${dir}/SKILL.md needs front matter with name: ${dir} and a description`);
    return { name, description, body };
  });
}

export function skill(ctx: AppContext, name: string): Skill | undefined {
  return SKILL_NAME.test(name) ? listSkills(ctx).find((s) => s.name === name) : undefined;
}

/** `/.well-known/agent-skills/index.json`: each skill with the sha256 of the exact bytes served at its URL. */
export function agentSkillsIndex(ctx: AppContext) {
  return {
    $schema: AGENT_SKILLS_SCHEMA,
    skills: listSkills(ctx).map((s) => ({
      name: s.name,
      type: "skill-md",
      description: s.description,
      url: `${ctx.config.baseUrl}/.well-known/agent-skills/${s.name}/SKILL.md`,
      digest: `sha256:${crypto.createHash("sha256").update(s.body, "utf8").digest("hex")}`,
    })),
  };
}

export function robotsTxt(base: string): string {
  return [
    "User-agent: *",
    // Content Signals (contentsignals.org): search and answers that cite the pages, yes; training, no.
    "Content-Signal: search=yes, ai-input=yes, ai-train=no",
    "Allow: /",
    // Personal, token-bearing pages: nothing to index.
    "Disallow: /unsubscribe/",
    "Disallow: /subscriptions/",
    "Disallow: /embed/",
    "",
    `Sitemap: ${base}/sitemap.xml`,
    "",
  ].join("\n");
}
