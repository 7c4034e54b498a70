import { escapeHtml as e } from "../src/core/email-render.ts";

/**
 * A small server-rendered page outside the API (checkout, results, the operator's page), in the
 * style of the unsubscribe pages. `body` is HTML the caller escaped.
 */
export function htmlPage(status: number, title: string, body: string, extraHeaders: Record<string, string> = {}): Response {
  return new Response(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><link rel="icon" href="data:,">
<title>${e(title)} · citydaily</title>
<style>
body{font:17px/1.55 system-ui,sans-serif;color:#1b1b1b;background:#f6f6f4;margin:0}
main{max-width:40rem;margin:2rem auto;padding:1.5rem;background:#fff}
button{font:inherit;padding:.5rem 1rem;border:1px solid #1a55a3;background:#1a55a3;color:#fff;border-radius:4px;cursor:pointer}
button.secondary{background:#fff;color:#1a55a3}
a{color:#1a55a3} table{border-collapse:collapse;width:100%} th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #eee}
td.num,th.num{text-align:right} label{display:block;margin:.75rem 0 .25rem} input{font:inherit;padding:.4rem;width:100%;box-sizing:border-box}
form{margin:.75rem 0} .status{color:#555} .price{font-size:1.6rem;font-weight:600} .actions{display:flex;gap:1rem;align-items:center}
</style></head>
<body><main>
<h1>${e(title)}</h1>
${body}
</main></body></html>`, {
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
