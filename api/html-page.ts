import { escapeHtml as e } from "../src/core/email-render.ts";

/**
 * The one shell of the small server-rendered pages outside the API and the static site (subscribe
 * answers, unsubscribe and manage pages, checkout, results, the operator's page). It repeats the
 * site's header, footer and palette (src/styles/site.css, src/layouts/Base.astro) in a short inline
 * style, since the site's stylesheet is a hashed build artefact these routes cannot name. `body` is
 * HTML the caller escaped.
 */
const STYLE = `:root{--ink:#1b1f23;--muted:#4a5560;--paper:#fdfcf9;--line:#d9d4c7;--accent:#0b5c8a;--warm:#a23b12;--soft:#eef3f7;--ok:#1d6b36;--bad:#9b1c1c;color-scheme:light}
*{box-sizing:border-box}
body{margin:0;background:var(--paper);color:var(--ink);font:1.0625rem/1.6 Charter,"Bitstream Charter","Sitka Text",Cambria,Georgia,serif}
a{color:var(--accent);text-underline-offset:.15em}
:focus-visible{outline:3px solid var(--warm);outline-offset:2px}
.wrap{max-width:46rem;margin:0 auto;padding:0 1rem}
header.site{border-bottom:1px solid var(--line);background:#fff}
header.site .wrap{display:flex;flex-wrap:wrap;align-items:baseline;justify-content:space-between;gap:.5rem 1.5rem;padding-top:.75rem;padding-bottom:.75rem}
.brand{font:700 1.35rem/1.2 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink);text-decoration:none;letter-spacing:-.01em}
.brand span{color:var(--warm)}
nav.primary ul{list-style:none;display:flex;gap:1.25rem;margin:0;padding:0;font-family:system-ui,sans-serif;font-size:.95rem}
main.wrap{padding-top:1.25rem;padding-bottom:3rem}
h1,h2{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;line-height:1.2;letter-spacing:-.01em}
h1{font-size:clamp(1.7rem,5vw,2.4rem);margin:.5rem 0 1rem}
.card{background:#fff;border:1px solid var(--line);border-radius:.6rem;padding:1rem 1.25rem}
button{font:600 1rem system-ui,sans-serif;padding:.6rem 1.1rem;min-height:2.75rem;border:1px solid var(--accent);border-radius:.35rem;background:var(--accent);color:#fff;cursor:pointer}
button.secondary{background:#fff;color:var(--accent)}
form{margin:.75rem 0;font-family:system-ui,sans-serif}
label{display:block;margin:.75rem 0 .25rem;font-size:.95rem}
input,select{font:inherit;font-size:1rem;padding:.55rem .6rem;border:1px solid #6b7580;border-radius:.35rem;min-height:2.75rem;width:100%;background:#fff;color:var(--ink)}
input[aria-invalid=true],select[aria-invalid=true]{border-color:var(--bad);border-width:2px}
.field-error{color:var(--bad);font-weight:600;font-size:.95rem;margin:.25rem 0 0}
.trap{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}
table{border-collapse:collapse;width:100%;font-family:system-ui,sans-serif;font-size:.95rem}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid var(--line)}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
ul.subscriptions{padding-left:0;list-style:none}
ul.subscriptions li{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;padding:.5rem 0;border-bottom:1px solid var(--line)}
ul.subscriptions form{margin:0}
.status{color:var(--muted)} .notice{font-weight:600;color:var(--ok)}
.price{font-size:1.6rem;font-weight:600} .actions{display:flex;flex-wrap:wrap;gap:1rem;align-items:center}
footer.site{border-top:1px solid var(--line);padding:1.5rem 0 2.5rem;font-family:system-ui,sans-serif;font-size:.85rem;color:var(--muted)}
footer.site a{color:var(--muted)}
@media (max-width:30rem){body{font-size:1rem}}`;

const FAVICON = "data:image/svg+xml,%3Csvg%20xmlns='http://www.w3.org/2000/svg'%20viewBox='0%200%2016%2016'%3E%3Crect%20width='16'%20height='16'%20rx='3'%20fill='%23a23b12'/%3E%3C/svg%3E";

/** The page's HTML alone (tests and the subscribe route share it). `style`: a page's own extra rules (the operator desk's). */
export function htmlDocument(title: string, body: string, style = ""): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><link rel="icon" href="${FAVICON}">
<title>${e(title)} · citydaily</title>
<style>${STYLE}${style}</style></head>
<body>
<header class="site"><div class="wrap"><a class="brand" href="/">city<span>daily</span></a>
<nav class="primary" aria-label="Main"><ul><li><a href="/cities">Cities</a></li><li><a href="/feed.xml">RSS</a></li><li><a href="/developers">Developers</a></li></ul></nav></div></header>
<main id="main" class="wrap">
<h1>${e(title)}</h1>
${body}
</main>
<footer class="site"><div class="wrap"><p>citydaily is a free daily newsletter for every U.S. city. <a href="/">Back to citydaily</a></p></div></footer>
</body></html>`;
}

export function htmlPage(status: number, title: string, body: string, extraHeaders: Record<string, string> = {}, style = ""): Response {
  return new Response(htmlDocument(title, body, style), {
    status,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      // These addresses carry tokens or order ids: keep them out of Referer headers and search engines.
      "Referrer-Policy": "no-referrer",
      "X-Robots-Tag": "noindex",
      ...extraHeaders,
    },
  });
}
