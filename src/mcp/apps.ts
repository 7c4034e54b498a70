import { RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/server";
import { escapeHtml } from "../lib/html.ts";

/**
 * MCP Apps views (SEP-1865, `@modelcontextprotocol/ext-apps`): the `ui://` resources that hosts
 * supporting the extension render in a sandboxed iframe next to a tool's result. Three views, each
 * one self-contained HTML document (inline style and script, no outside loads, so the sandbox's
 * default CSP suffices):
 *
 * - `edition`: get_archive's edition as the site draws it (its rendered HTML, in the site's type);
 * - `city`: get_city's town page in brief (editions, census figures, events, directory);
 * - `order`: get_listing_order's progress (created, paid, published; or why it stopped).
 *
 * The script speaks the view side of the extension's postMessage protocol directly (it is about
 * forty lines; the extension's own `App` class would add 540 KB of bundled dependencies to every
 * view): `ui/initialize` to the host, then `ui/notifications/initialized`; it renders the
 * `structuredContent` of `ui/notifications/tool-result` (and reads the call's arguments from
 * `ui/notifications/tool-input`), follows the host's light or dark theme
 * (`hostContext.theme`, else `prefers-color-scheme`), reports its height
 * (`ui/notifications/size-changed`) and opens links through the host (`ui/open-link`).
 */

export const APP_MIME_TYPE = RESOURCE_MIME_TYPE;

export type AppViewName = "edition" | "city" | "order";

export const APP_VIEWS: Record<AppViewName, { uri: string; title: string; description: string }> = {
  edition: { uri: "ui://citydaily/edition.html", title: "Edition view", description: "Shows an edition (get_archive) as the newsletter draws it." },
  city: { uri: "ui://citydaily/city.html", title: "Town view", description: "Shows a town (get_city): its latest editions, census figures, events and directory." },
  order: { uri: "ui://citydaily/listing-order.html", title: "Listing order view", description: "Shows a listing order's progress (get_listing_order)." },
};

const STYLE = `:root{--ink:#1b1f23;--muted:#4a5560;--paper:#fdfcf9;--card:#fff;--line:#d9d4c7;--accent:#0b5c8a;--warm:#a23b12;--ok:#1d6b36;--bad:#9b1c1c;color-scheme:light}
:root[data-theme=dark]{--ink:#ece8df;--muted:#b7b0a3;--paper:#17191c;--card:#202328;--line:#3a3d42;--accent:#7cc4f0;--warm:#f0a27c;--ok:#7fd49a;--bad:#f09a9a;color-scheme:dark}
@media (prefers-color-scheme:dark){:root:not([data-theme=light]){--ink:#ece8df;--muted:#b7b0a3;--paper:#17191c;--card:#202328;--line:#3a3d42;--accent:#7cc4f0;--warm:#f0a27c;--ok:#7fd49a;--bad:#f09a9a;color-scheme:dark}}
*{box-sizing:border-box}
html,body{margin:0;background:var(--paper);color:var(--ink)}
body{font:1rem/1.55 Charter,"Bitstream Charter","Sitka Text",Cambria,Georgia,serif;padding:.75rem;overflow-wrap:anywhere}
h1,h2,h3,.meta,.brand,table,dl{font-family:system-ui,-apple-system,"Segoe UI",sans-serif}
h1{font-size:1.35rem;line-height:1.25;margin:.25rem 0 .5rem}
h2{font-size:1.05rem;margin:1.25rem 0 .4rem}
a{color:var(--accent);text-underline-offset:.15em}
.brand{font-weight:700;font-size:.85rem;color:var(--muted);letter-spacing:.02em}
.brand span{color:var(--warm)}
.meta{color:var(--muted);font-size:.85rem;margin:0 0 .75rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:.5rem;padding:.75rem .9rem}
article>:first-child{margin-top:0}
article>:last-child{margin-bottom:0}
article img,article iframe,article video{max-width:100%;height:auto}
article table{display:block;overflow-x:auto;max-width:100%;border-collapse:collapse}
article pre{overflow-x:auto;max-width:100%}
article td,article th{padding:.2rem .4rem;border-bottom:1px solid var(--line)}
ul.plain{list-style:none;padding:0;margin:0}
ul.plain li{padding:.35rem 0;border-bottom:1px solid var(--line)}
dl.figures{display:grid;grid-template-columns:minmax(0,1fr) auto;gap:.2rem .75rem;margin:0;font-size:.9rem}
dl.figures dt{color:var(--muted)} dl.figures dd{margin:0;text-align:right;font-variant-numeric:tabular-nums}
ol.steps{list-style:none;padding:0;margin:.5rem 0;display:flex;flex-wrap:wrap;gap:.4rem;font-family:system-ui,sans-serif;font-size:.85rem}
ol.steps li{border:1px solid var(--line);border-radius:999px;padding:.15rem .6rem;color:var(--muted)}
ol.steps li.done{border-color:var(--ok);color:var(--ok)} ol.steps li.now{border-color:var(--accent);color:var(--accent);font-weight:600}
ol.steps li.stopped{border-color:var(--bad);color:var(--bad);font-weight:600}
.button{display:inline-block;font:600 .95rem system-ui,sans-serif;padding:.5rem .9rem;border-radius:.35rem;background:var(--accent);color:var(--paper);text-decoration:none}
.empty{color:var(--muted)}`;

/** The view side of the protocol, shared by every view; `render(result, args)` is the view's own. */
const GUEST = `
const base = document.documentElement.dataset.base;
let nextId = 1, args = {};
const pending = new Map();
const post = (m) => window.parent.postMessage({ jsonrpc: "2.0", ...m }, "*");
const request = (method, params) => new Promise((resolve, reject) => { const id = nextId++; pending.set(id, { resolve, reject }); post({ id, method, params }); });
const el = (tag, props = {}, ...kids) => { const e = document.createElement(tag); for (const [k, v] of Object.entries(props)) if (v !== undefined && v !== null) (k === "class" ? (e.className = v) : k === "text" ? (e.textContent = v) : e.setAttribute(k, v)); for (const k of kids) if (k !== undefined && k !== null && k !== false) e.append(k); return e; };
const fmtDate = (d) => { const t = Date.parse(d.length === 10 ? d + "T12:00:00Z" : d); return Number.isNaN(t) ? d : new Date(t).toLocaleDateString("en-US", { weekday: "short", month: "short", day: "numeric", year: "numeric", timeZone: d.length === 10 ? "UTC" : undefined }); };
const theme = (ctx) => { if (ctx && (ctx.theme === "dark" || ctx.theme === "light")) document.documentElement.dataset.theme = ctx.theme; };
let lastHeight = 0;
const size = () => { const h = Math.ceil(document.documentElement.getBoundingClientRect().height); if (h !== lastHeight) { lastHeight = h; post({ method: "ui/notifications/size-changed", params: { height: h } }); } };
new ResizeObserver(size).observe(document.documentElement);
document.addEventListener("click", (ev) => { const a = ev.target.closest && ev.target.closest("a[href]"); if (!a) return; ev.preventDefault(); request("ui/open-link", { url: a.href }).catch(() => {}); });
window.addEventListener("message", (ev) => {
  if (ev.source !== window.parent) return;
  const m = ev.data;
  if (!m || m.jsonrpc !== "2.0") return;
  if (m.id !== undefined && pending.has(m.id) && !m.method) { const p = pending.get(m.id); pending.delete(m.id); m.error ? p.reject(m.error) : p.resolve(m.result); return; }
  if (m.method === "ui/notifications/tool-input") args = (m.params && m.params.arguments) || {};
  else if (m.method === "ui/notifications/tool-result") show(m.params);
  else if (m.method === "ui/notifications/host-context-changed") theme(m.params);
  else if (m.id !== undefined && m.method) post({ id: m.id, result: {} });
});
// A tool error as sentences: the problem's title, its detail and what to do (never its JSON).
const sentence = (t) => { const x = String(t || "").replace(/\`/g, "").trim(); return x && !/[.!?]$/.test(x) ? x + "." : x; };
function problemView(result) {
  let p = result && result._meta && result._meta["citydaily/problem"];
  if (!p) { try { p = JSON.parse(result.content[0].text); } catch (e) { p = undefined; } }
  if (!p || !p.detail) return [el("p", { class: "brand" }, "city", el("span", { text: "daily" })), el("h1", { text: "Nothing to show" }), el("p", { class: "empty", text: "The tool gave no result to show." })];
  return [
    el("p", { class: "brand" }, "city", el("span", { text: "daily" })),
    el("h1", { text: p.title || "Something went wrong" }),
    el("p", { class: "card", role: "status", text: sentence(p.detail) }),
    p.resolution ? el("p", { class: "meta", text: "What to do: " + sentence(p.resolution) }) : null,
    p.place && p.place.url ? el("p", {}, el("a", { href: p.place.url, text: "Open " + p.place.name + ", " + p.place.state + " on citydaily" })) : null,
  ];
}
function show(result) {
  const main = document.getElementById("view");
  const data = result && result.structuredContent;
  if (!data || result.isError) { main.replaceChildren(...problemView(result).filter(Boolean)); size(); return; }
  main.replaceChildren(...render(data, args).filter((n) => n !== null && n !== undefined && n !== false));
  size();
}
request("ui/initialize", { appInfo: { name: "citydaily", version: "1.0.0" }, appCapabilities: { availableDisplayModes: ["inline"] }, protocolVersion: "2026-01-26" })
  .then((r) => { theme(r && r.hostContext); post({ method: "ui/notifications/initialized", params: {} }); }, () => {});
`;

const RENDER: Record<AppViewName, string> = {
  edition: `
function render(d, a) {
  // The edition's own HTML (the newsletter as sent), without anything that could load or run.
  const doc = new DOMParser().parseFromString(d.html, "text/html");
  doc.querySelectorAll("script,style,link,iframe,object,embed,img,picture,video,audio,source,form,meta,base").forEach((n) => n.remove());
  doc.querySelectorAll("*").forEach((n) => { for (const at of [...n.attributes]) if (/^on/i.test(at.name) || at.name === "style" || at.name === "class" || at.name === "width") n.removeAttribute(at.name); });
  // Its own heading repeats the subject shown above it.
  const first = doc.body.querySelector("h1");
  if (first && first.textContent.trim() === d.subject.trim()) first.remove();
  const article = el("article", { class: "card" }, ...doc.body.childNodes);
  const page = a.slug ? base + "/" + a.slug + "/" + d.date : undefined;
  return [
    el("p", { class: "brand" }, "city", el("span", { text: "daily" })),
    el("h1", { text: d.subject }),
    el("p", { class: "meta", text: fmtDate(d.date) }),
    article,
    page && el("p", {}, el("a", { href: page, text: "Open this edition on citydaily" })),
  ];
}`,
  city: `
const int = (n) => Number(n).toLocaleString("en-US");
function render(d) {
  const c = d.census || {};
  const figures = [["Population", c.population, int], ["Median household income", c.medianIncome, (n) => "$" + int(n)], ["Median home value", c.medianHomeValue, (n) => "$" + int(n)], ["Median age", c.medianAge, (n) => String(n)]]
    .filter(([, v]) => v !== undefined && v !== null);
  const page = base + "/" + d.slug;
  return [
    el("p", { class: "brand" }, "city", el("span", { text: "daily" })),
    el("h1", { text: d.city + ", " + d.state }),
    el("p", { class: "meta", text: int(d.subscriberCount) + (d.subscriberCount === 1 ? " subscriber" : " subscribers") + (d.archives.length ? " · latest edition " + fmtDate(d.archives[0].date) : " · no edition yet") }),
    el("h2", { text: "Latest editions" }),
    d.archives.length ? el("ul", { class: "plain" }, ...d.archives.slice(0, 7).map((e) => el("li", {}, el("a", { href: page + "/" + e.date, text: e.subject }), el("div", { class: "meta", text: fmtDate(e.date) })))) : el("p", { class: "empty", text: "The first edition comes out the morning after the first subscriber." }),
    figures.length ? el("h2", { text: "Census figures" + (c.year ? " (ACS " + c.year + ")" : "") }) : null,
    figures.length ? el("dl", { class: "figures" }, ...figures.flatMap(([k, v, f]) => [el("dt", { text: k }), el("dd", { text: f(v) })])) : null,
    el("h2", { text: "Coming up" }),
    d.events.length ? el("ul", { class: "plain" }, ...d.events.slice(0, 5).map((e) => el("li", {}, el("strong", { text: e.title }), el("div", { class: "meta", text: fmtDate(e.startsAt) + (e.venue ? " · " + e.venue : "") })))) : el("p", { class: "empty", text: "No events on the town's calendar yet." }),
    d.directory.length ? el("h2", { text: "Local directory" }) : null,
    d.directory.length ? el("ul", { class: "plain" }, ...d.directory.slice(0, 5).map((b) => el("li", {}, el("strong", { text: b.title }), el("div", { class: "meta", text: [b.category, b.address].filter(Boolean).join(" · ") })))) : null,
    el("p", {}, el("a", { href: page, text: "Open " + d.city + " on citydaily" })),
  ];
}`,
  order: `
const STEPS = ["created", "paid", "published"];
const REACHED = { awaiting_review: 0, held: 0, pending_payment: 0, paid: 1, published: 2, ended: 2, refunded: 1, rejected: 0, expired: 0 };
const WORDS = { awaiting_review: "Waiting for a person's approval", held: "Held: a person looks before a payment link is issued", pending_payment: "Waiting for payment", paid: "Paid: being published", published: "Published", ended: "Ended", refunded: "Refunded", rejected: "Rejected", expired: "Expired unpaid" };
// An event's day and time as the town's clock reads them (\`startsAt\` is local wall time), and where.
const fmtTime = (s) => { const m = /T([0-9]{2}):([0-9]{2})/.exec(s || ""); if (!m) return ""; const h = Number(m[1]); return (h % 12 || 12) + ":" + m[2] + (h < 12 ? " AM" : " PM"); };
const when = (d) => d.startsAt ? [fmtDate(d.startsAt.slice(0, 10)) + (fmtTime(d.startsAt) ? ", " + fmtTime(d.startsAt) : ""), d.endsAt ? "until " + (d.endsAt.slice(0, 10) === d.startsAt.slice(0, 10) ? fmtTime(d.endsAt) : fmtDate(d.endsAt.slice(0, 10)) + (fmtTime(d.endsAt) ? ", " + fmtTime(d.endsAt) : "")) : ""].filter(Boolean).join(" ") : "";
function render(d) {
  const stopped = ["rejected", "expired", "refunded", "ended"].includes(d.status);
  const reached = REACHED[d.status] ?? 0;
  const price = d.priceCents === 0 ? "free" : "$" + (d.priceCents / 100).toFixed(2);
  return [
    el("p", { class: "brand" }, "city", el("span", { text: "daily" })),
    el("h1", { text: d.title }),
    el("p", { class: "meta", text: (d.product === "event" ? "Event" : "Business") + " listing · " + d.tier + " (" + price + ") · " + d.town.city + ", " + d.town.state }),
    d.product === "event" && d.startsAt ? el("p", { class: "meta" }, el("strong", { text: when(d) }), d.venue || d.address ? el("span", { text: " · " + [d.venue, d.address].filter(Boolean).join(", ") }) : null) : null,
    el("ol", { class: "steps", "aria-label": "Progress" }, ...STEPS.map((s, i) => el("li", { class: i < reached || (i === reached && d.status === "published") ? "done" : i === reached && !stopped ? "now" : "" , text: s })), stopped ? el("li", { class: "stopped", text: d.status }) : null),
    el("p", { class: "card", role: "status" }, el("strong", { text: WORDS[d.status] || d.status }), d.rejected ? el("span", { text: ": " + d.rejected.reason }) : d.held ? el("span", { text: ": " + d.held.reason }) : null),
    d.checkoutUrl && d.status === "pending_payment" ? el("p", {}, el("a", { class: "button", href: d.checkoutUrl, text: "Pay " + price }), d.checkoutExpiresAt ? el("span", { class: "meta", text: " until " + fmtDate(d.checkoutExpiresAt) }) : null) : null,
    d.published ? el("p", {}, el("a", { href: base + "/" + d.town.slug, text: "See it on " + d.town.city + "'s page" })) : null,
  ];
}`,
};


/** One view as its resource's HTML: the shell, the guest protocol and the view's renderer. */
export function appViewHtml(view: AppViewName, baseUrl: string): string {
  const { title } = APP_VIEWS[view];
  return `<!DOCTYPE html>
<html lang="en" data-base="${escapeHtml(baseUrl)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>citydaily: ${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main id="view"><p class="empty">Loading…</p></main>
<script>
"use strict";
${RENDER[view]}
${GUEST}
</script>
</body>
</html>
`;
}
