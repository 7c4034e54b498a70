import type { TownClicks } from "../../../src/services/readers/clicks.ts";
import type { AudienceDay, StatementMonth } from "../../../src/core/commerce/operator-statement.ts";
import { eventWhenWords, shortDay } from "../../../src/core/calendar/event-time.ts";
import { formatCents } from "../../../src/core/commerce/pricing.ts";
import { formatDate, formatInstantUtc, formatLongDate, formatMonth } from "../../../src/site/format.ts";
import type { TownDesk } from "../../../src/services/commerce/operator-desk.ts";
import type { LeaseView } from "../../../src/store/commerce/leases.ts";
import type { OperatorAccount } from "../../../src/store/commerce/payouts.ts";
import { escapeHtml as e } from "../../../src/lib/html.ts";

/** The operator desk's markup (api/routes/operator/routes.ts); every value escaped. */

export type FieldErrors = Record<string, string>;


// Dates in words, like the rest of the desk ("November 21, 2026"; "December 22, 2026 at 12:00 UTC").
const date = (iso: string | null | undefined) => (iso ? formatDate(iso.slice(0, 10)) : "");
const when = formatInstantUtc;

function fieldError(id: string, message: string | undefined): string {
  return message ? `<p class="field-error" id="${id}-error">${e(message)}</p>` : "";
}

export function signInPage(csrf: string, opts: { email?: string; errors?: FieldErrors; notice?: string }): string {
  const err = opts.errors?.email;
  return `${opts.notice ? `<p class="notice" role="status">${e(opts.notice)}</p>` : ""}
<p>Run your town's newsletter here: tomorrow's note, feeds, listings to review, your readers, your statement and payouts.</p>
<form method="post" action="/operator/sign-in" novalidate>
<input type="hidden" name="csrf" value="${e(csrf)}">
<label for="email">Email address you leased your town with</label>
<input id="email" name="email" type="email" autocomplete="email" required value="${e(opts.email ?? "")}"${err ? ` aria-invalid="true" aria-describedby="email-error"` : ""}>
${fieldError("email", err)}
<p class="status">We email you a link that signs you in. It works once, for 15 minutes. No password.</p>
<div class="actions"><button type="submit">Email me a sign-in link</button></div>
</form>
<p class="status">No town yet? Every town's page offers its lease.</p>`;
}

function signOutForm(csrf: string): string {
  return `<form method="post" action="/operator/sign-out" class="inline"><input type="hidden" name="csrf" value="${e(csrf)}"><button type="submit" class="secondary">Sign out</button></form>`;
}

function payoutsBlock(stripe: boolean, account: OperatorAccount | undefined, csrf: string): string {
  if (!stripe) {
    return `<p>Your share of each listing sold in your towns accrues in your statement. citydaily pays out what is owed each month.</p>`;
  }
  if (account?.payoutsEnabled) return `<p data-testid="payouts">Payout account connected (Stripe). Your share of each listing is transferred to it when the listing's payment clears, and taken back if it is refunded.</p>`;
  return `<p data-testid="payouts">${account ? "Stripe is still checking your payout account; finish its questions to receive transfers." : "Connect a payout account to receive your share of each listing. Until then your shares accrue and are paid once it is connected."}</p>
<form method="post" action="/operator/payouts/connect"><input type="hidden" name="csrf" value="${e(csrf)}"><button type="submit">${account ? "Continue with Stripe" : "Connect a payout account with Stripe"}</button></form>`;
}

export function townsPage(leases: LeaseView[], opts: { email: string; csrf: string; notice?: string; account: OperatorAccount | undefined; stripe: boolean }): string {
  const active = leases.filter((l) => l.status === "active");
  const ended = leases.filter((l) => l.status !== "active");
  const item = (l: LeaseView) => `<li><a href="/operator/towns/${e(l.slug)}">${e(l.town_name)}, ${e(l.state_name)}</a>${l.cancel_at ? ` (cancelled; yours until ${e(date(l.cancel_at))})` : ""}</li>`;
  return `${opts.notice ? `<p class="notice" role="status">${e(opts.notice)}</p>` : ""}
<div class="whoami"><p>Signed in as <strong>${e(opts.email)}</strong>.</p> ${signOutForm(opts.csrf)}</div>
<h2>Your towns</h2>
${active.length ? `<ul>${active.map(item).join("\n")}</ul>` : "<p>You run no town at the moment.</p>"}
${ended.length ? `<h2>Towns you ran</h2><ul>${ended.map((l) => `<li>${e(l.town_name)}, ${e(l.state_name)} (ended ${e(date(l.ended_at))})</li>`).join("")}</ul>` : ""}
<h2>Payouts</h2>
${payoutsBlock(opts.stripe, opts.account, opts.csrf)}
<h2>AI clients</h2>
<p>Run your towns from an AI assistant (Claude, Claude Code, the MCP Inspector): add <a href="/mcp">this site's MCP server</a> with <code>?operator</code> after its address, and allow the assistant when it asks. <a href="/operator/clients">Connected AI clients</a> lists those you allowed and takes access back.</p>`;
}

/** New readers up, unsubscribed down, one bar pair per day; the same numbers follow as a table. */
/** Clicks per edition and the most followed links: totals only, nobody's clicks. */
function clicksBlock(slug: string, c: TownClicks): string {
  if (c.perEdition.length === 0) return `<h3>Clicks</h3><p>No link in an edition has been followed yet. Links are counted in total, never per reader.</p>`;
  return `<h3>Clicks per edition</h3>
<table data-testid="clicks"><thead><tr><th scope="col">Edition</th><th scope="col" class="num">Clicks</th><th scope="col" class="num">Links followed</th></tr></thead>
<tbody>${c.perEdition.map((r) => `<tr><th scope="row">${e(shortDay(r.date))}</th><td class="num">${r.clicks}</td><td class="num">${r.links}</td></tr>`).join("")}</tbody></table>
<h3>Most followed links, last 30 days</h3>
<ol data-testid="top-links">${c.topLinks.map((l) => `<li><a href="${e(l.url)}" rel="noopener">${e(l.url)}</a>: ${l.clicks} click${l.clicks === 1 ? "" : "s"}</li>`).join("")}</ol>
<p><a href="/operator/towns/${e(slug)}/clicks.csv" download>Download clicks per edition (CSV)</a>. Counted in total per link, through our own redirect: no cookies, pixels or reader ids; mail servers' link scanners are left out.</p>`;
}

export function audienceChart(days: AudienceDay[]): string {
  const w = 600, h = 170, mid = 100, pad = 4;
  const max = Math.max(1, ...days.map((d) => d.joined), ...days.map((d) => d.left));
  const scaleUp = (mid - 12) / max, scaleDown = (h - mid - 30) / max;
  const step = (w - 2 * pad) / days.length;
  const bars = days.map((d, i) => {
    const x = (pad + i * step + step * 0.15).toFixed(1);
    const bw = (step * 0.7).toFixed(1);
    const up = d.joined * scaleUp, down = d.left * scaleDown;
    return `${d.joined ? `<rect x="${x}" y="${(mid - up).toFixed(1)}" width="${bw}" height="${up.toFixed(1)}" fill="#0b5c8a"/>` : ""}${d.left ? `<rect x="${x}" y="${mid}" width="${bw}" height="${down.toFixed(1)}" fill="#a23b12"/>` : ""}`;
  }).join("");
  const joined = days.reduce((s, d) => s + d.joined, 0), left = days.reduce((s, d) => s + d.left, 0);
  const first = days[0]?.date ?? "", last = days.at(-1)?.date ?? "";
  return `<svg class="chart" viewBox="0 0 ${w} ${h}" role="img" aria-label="New and unsubscribed readers per day from ${e(first)} to ${e(last)}: ${joined} new, ${left} unsubscribed. The numbers are in the table below.">
<line x1="0" y1="${mid}" x2="${w}" y2="${mid}" stroke="#6b7580" stroke-width="1"/>${bars}
<text x="${pad}" y="${h - 2}" font-size="20" fill="#4a5560">${e(first)}</text><text x="${w - pad}" y="${h - 2}" font-size="20" fill="#4a5560" text-anchor="end">${e(last)}</text>
</svg>
<p class="legend"><span class="swatch up"></span>new readers (bars up) <span class="swatch down"></span>unsubscribed (bars down)</p>
<p>In 30 days: <strong>${joined} new</strong> and <strong>${left} unsubscribed</strong>.</p>`;
}

function statementTable(rows: StatementMonth[]): string {
  if (!rows.length) return "<p>No money has moved yet.</p>";
  const c = (n: number) => e(formatCents(n));
  return `<section class="scroll" aria-label="Statement by month" tabindex="0"><table data-testid="statement">
<thead><tr><th scope="col">Month</th><th scope="col" class="num">Listings sold</th><th scope="col" class="num">Sales</th><th scope="col" class="num">Fees</th><th scope="col" class="num">Your half</th><th scope="col" class="num">Lease charge</th><th scope="col" class="num">Net</th><th scope="col" class="num">Paid out</th></tr></thead>
<tbody>${rows.map((r) => `<tr><th scope="row">${e(formatMonth(r.month))}</th><td class="num">${r.listingsSold}</td><td class="num">${c(r.grossCents)}</td><td class="num">${c(r.feeCents)}</td><td class="num">${c(r.shareCents)}</td><td class="num">${c(r.leaseChargeCents)}</td><td class="num">${c(r.netCents)}</td><td class="num">${c(r.paidOutCents)}</td></tr>`).join("\n")}</tbody>
</table></section>`;
}

export interface DeskOptions {
  email: string;
  csrf: string;
  notice?: string;
  errors?: FieldErrors;
  /** The listing the errors belong to. */
  orderId?: string;
  values?: Record<string, string>;
  /** Extra sections (feeds) rendered by their own modules. */
  extra?: Array<{ id: string; title: string; html: string }>;
  /** The add-feed form as posted (kept on errors). */
  feed?: { url: string; error?: string };
  /** The note form as posted (kept on errors and previews) and its preview. */
  note?: { values: { markdown: string; authorName: string; date: string }; errors?: FieldErrors; preview?: string; saved?: boolean };
}

function feedsSection(v: TownDesk, o: DeskOptions, csrfField: string): string {
  const slug = e(v.lease.slug);
  const err = o.feed?.error;
  const rows = v.feeds.map((f) => `<li class="listing"><p><strong>${e(f.title)}</strong> (${f.kind === "ical" ? "calendar" : e(f.kind.toUpperCase())})</p>
<p><a href="${e(f.url)}" rel="nofollow noopener">${e(f.url)}</a></p>
${f.addedBy === "directory" ? `<p data-testid="feed-origin">From the town directory${f.homeUrl ? `: <a href="${e(f.homeUrl)}" rel="nofollow noopener">${e(new URL(f.homeUrl).host)}</a>` : ""}${f.scope === "county" ? ", county-wide: only its items that name the town are shown" : ""}. Checked ${f.verifiedAt ? e(when(f.verifiedAt)) : "not yet"}; checked again each week.</p>` : ""}
<p data-testid="feed-status">${f.paused ? "<strong>Paused</strong>: added under a lease that has ended, so not fetched or shown; remove it, or add its address again to run it under yours. " : ""}${f.status === "failing" ? `<strong class="form-error">Failing</strong>: ${e(f.lastError ?? "")}` : f.lastError ? `Last fetch failed: ${e(f.lastError)}` : "Working"}. Last fetch: ${f.lastFetchedAt ? e(when(f.lastFetchedAt)) : "not yet"}. Items: ${f.itemCount}.</p>
<form method="post" action="/operator/towns/${slug}/feeds/${f.id}/remove">${csrfField}<button type="submit" class="secondary">Remove ${e(f.title.slice(0, 40))}</button></form></li>`).join("\n");
  const removed = v.directoryRemoved.map((r) => `<li class="listing"><p><strong>${e(r.title)}</strong>: <a href="${e(r.url)}" rel="nofollow noopener">${e(r.url)}</a></p>
<p>Removed ${e(when(r.removedAt))}.</p>
<form method="post" action="/operator/towns/${slug}/directory/restore">${csrfField}<input type="hidden" name="url" value="${e(r.url)}"><button type="submit" class="secondary">Restore ${e(r.title.slice(0, 40))}</button></form></li>`).join("\n");
  return `<p>Your town's public calendars (iCalendar, .ics) and news feeds (RSS or Atom): each morning's edition lists the coming events and new headlines from them. Sources marked "from the town directory" were found in open directories of local news and government sites and are checked each week; remove any you do not want.</p>
${v.feeds.length ? `<ul class="plain">${rows}</ul>` : "<p>No feed yet.</p>"}
${removed ? `<h3>Removed directory sources</h3>\n<ul class="plain">${removed}</ul>` : ""}
${v.directoryCandidates > 0 ? `<form method="post" action="/operator/towns/${slug}/directory/check">${csrfField}<p>The town directory knows ${v.directoryCandidates} possible ${v.directoryCandidates === 1 ? "source" : "sources"} for your town, checked each week.</p><div class="actions"><button type="submit" class="secondary">Check the town directory now</button></div></form>` : ""}
<form method="post" action="/operator/towns/${slug}/feeds#feeds" novalidate>${csrfField}
<label for="feed-url">Address of a calendar or news feed</label>
<input id="feed-url" name="url" type="url" inputmode="url" value="${e(o.feed?.url ?? "")}" placeholder="https://"${err ? ` aria-invalid="true" aria-describedby="feed-url-error"` : ""}>
${fieldError("feed-url", err)}
<div class="actions"><button type="submit">Add the feed</button></div>
</form>`;
}

function noteSection(v: TownDesk, o: DeskOptions, csrfField: string): string {
  const n = o.note;
  const values = n?.values ?? { markdown: "", authorName: v.notes.scheduled.at(-1)?.authorName ?? "", date: v.notes.nextEdition };
  const err = n?.errors ?? {};
  const invalid = (f: string, id: string) => (err[f] ? ` aria-invalid="true" aria-describedby="${id}-error"` : "");
  const slug = e(v.lease.slug);
  return `<p>A few lines from you, shown in the morning's edition under the greeting, signed with your name. Paragraphs, <em>*emphasis*</em>, <strong>**bold**</strong> and links as [words](https://...) are kept; anything else is shown as plain text.</p>
${err.form ? `<p class="form-error" role="alert">${e(err.form)}</p>` : ""}
<form method="post" action="/operator/towns/${slug}/note#note" novalidate>${csrfField}
<label for="note-markdown">Your note</label>
<textarea id="note-markdown" name="markdown" rows="6" maxlength="2000"${invalid("markdown", "note-markdown")}>${e(values.markdown)}</textarea>
${fieldError("note-markdown", err.markdown)}
<label for="note-author">Signed</label>
<input id="note-author" name="authorName" type="text" autocomplete="name" value="${e(values.authorName)}"${invalid("authorName", "note-author")}>
${fieldError("note-author", err.authorName)}
<label for="note-date">Edition date</label>
<input id="note-date" name="date" type="date" value="${e(values.date)}" min="${e(v.notes.nextEdition)}"${v.notes.lastDate ? ` max="${e(v.notes.lastDate)}"` : ""} aria-describedby="note-date-help${err.date ? " note-date-error" : ""}"${err.date ? ` aria-invalid="true"` : ""}>
<p class="status" id="note-date-help">The next edition goes out on ${e(formatLongDate(v.notes.nextEdition))}; choose a later date to schedule the note for that morning.</p>
${fieldError("note-date", err.date)}
<div class="actions"><button type="submit" name="action" value="preview" class="secondary">Preview</button><button type="submit" name="action" value="save">Save the note</button></div>
</form>
${n?.preview !== undefined ? `<h3>Preview</h3>${n.preview ? `<div class="card" data-testid="note-preview">${n.preview}</div>` : "<p>Nothing to preview yet: see the message above the note.</p>"}` : ""}
<h3>Scheduled notes</h3>
${v.notes.scheduled.length ? v.notes.scheduled.map((s) => `<div class="listing"><p><strong>${e(formatLongDate(s.date))}</strong>${s.date === v.notes.nextEdition ? " (next edition)" : ""}${v.notes.lastDate && s.date > v.notes.lastDate ? ` <span data-testid="note-withheld">(after your lease ends on ${e(formatLongDate(v.notes.lastDate))}: it will not be printed)</span>` : ""}</p><div data-testid="note-${e(s.date)}">${s.html}</div>
<form method="post" action="/operator/towns/${slug}/note/delete">${csrfField}<input type="hidden" name="date" value="${e(s.date)}"><button type="submit" class="secondary">Delete the note of ${e(formatLongDate(s.date))}</button></form></div>`).join("\n") : "<p>No note scheduled.</p>"}`;
}

export function deskPage(v: TownDesk, o: DeskOptions): string {
  const csrfField = `<input type="hidden" name="csrf" value="${e(o.csrf)}">`;
  const town = `${v.lease.town_name}, ${v.lease.state_name}`;
  const sections: Array<{ id: string; title: string; html: string }> = [];
  const extra = o.extra ?? [];

  sections.push({ id: "note", title: "Tomorrow's note", html: noteSection(v, o, csrfField) });
  sections.push({
    id: "review", title: "Listings to review",
    html: v.review.length === 0 ? `<p>Nothing waits for you: free listings and held ones of ${e(v.lease.town_name)} appear here.</p>` : v.review.map(({ order: l, decisions }) => {
      const mine = o.orderId === l.id;
      const reasonErr = mine ? o.errors?.reason : undefined;
      const rid = `reason-${l.id}`;
      return `<article class="listing" aria-labelledby="t-${e(l.id)}">
<h3 id="t-${e(l.id)}">${e(l.title)}</h3>
<p class="status">${l.product === "event" ? "Event" : "Business"}, ${e(l.tier)} tier (${e(formatCents(l.price_cents))}). ${l.status === "held" ? `Held by the listing screen: ${e(l.reason ?? "")}` : "Free listing waiting for a person's approval."}</p>
<p>${e(l.description)}</p>
<p>${l.product === "event" ? `When: ${e(eventWhenWords({ startsAt: l.starts_at ?? "", endsAt: l.ends_at }, { withDay: true }))}${l.venue ? `. Where: ${e(l.venue)}` : ""}` : `${e(l.category ?? "")}, ${e(l.address ?? "")}`}</p>
<p>Link: <a href="${e(l.url)}" rel="nofollow noopener">${e(l.url)}</a></p>
${decisions.length ? `<p class="status">${decisions.map((d) => `${e(d.decision)} by ${e(d.byRole)} on ${e(date(d.createdAt))}`).join("; ")}</p>` : ""}
${mine && o.errors?.form ? `<p class="form-error" role="alert">${e(o.errors.form)}</p>` : ""}
<form method="post" action="/operator/towns/${e(v.lease.slug)}/listings/${e(l.id)}/approve">${csrfField}<button type="submit">Approve "${e(l.title.slice(0, 40))}"</button></form>
<form method="post" action="/operator/towns/${e(v.lease.slug)}/listings/${e(l.id)}/reject#review" novalidate>${csrfField}
<label for="${e(rid)}">Reason for rejecting (the buyer reads it)</label>
<textarea id="${e(rid)}" name="reason" rows="2" maxlength="500"${reasonErr ? ` aria-invalid="true" aria-describedby="${e(rid)}-error"` : ""}>${e(mine ? o.values?.reason ?? "" : "")}</textarea>
${fieldError(rid, reasonErr)}
<button type="submit" class="secondary">Reject</button></form>
</article>`;
    }).join("\n"),
  });
  const a = v.audience;
  sections.push({
    id: "audience", title: "Audience",
    html: `<p>Subscribers now</p><p class="big" data-testid="subscribers">${a.subscribers.toLocaleString("en-US")}</p>
<h3>New and unsubscribed, last 30 days</h3>
${audienceChart(a.days)}
<details><summary>The numbers by day</summary>
<section class="scroll" aria-label="Readers per day" tabindex="0"><table><caption class="status">New and unsubscribed readers per day</caption>
<thead><tr><th scope="col">Day</th><th scope="col" class="num">New</th><th scope="col" class="num">Unsubscribed</th></tr></thead>
<tbody>${a.days.map((d) => `<tr><th scope="row">${e(shortDay(d.date))}</th><td class="num">${d.joined}</td><td class="num">${d.left}</td></tr>`).join("")}</tbody></table></section></details>
<p>Referrals: <span data-testid="referrals">${a.referrals.referred}</span> readers subscribed through the "Forward to a neighbor" link of ${a.referrals.readers} reader${a.referrals.readers === 1 ? "" : "s"}.</p>
<h3>Emails sent per edition</h3>
${a.sent.length ? `<table><thead><tr><th scope="col">Edition</th><th scope="col" class="num">Sent</th><th scope="col" class="num">Queued</th></tr></thead>
<tbody>${a.sent.map((s) => `<tr><th scope="row">${e(shortDay(s.date))}</th><td class="num">${s.sent}</td><td class="num">${s.queued}</td></tr>`).join("")}</tbody></table>` : "<p>No edition yet: the first goes out the morning after the first reader subscribes.</p>"}
${clicksBlock(v.lease.slug, a.clicks)}`,
  });
  sections.push({
    id: "money", title: "Money",
    html: `<p>Half the net of every listing sold in ${e(v.lease.town_name)} is yours (price less the payment fee), taken back if a listing is refunded. The lease is billed by its own monthly charge; "Net" shows your half with it deducted.</p>
${statementTable(v.statement)}
<p><a href="/operator/towns/${e(v.lease.slug)}/statement.csv" download>Download the statement (CSV)</a></p>
<h3>Payouts</h3>
${payoutsBlock(v.payouts.mode === "stripe", v.payouts.account, o.csrf)}`,
  });
  sections.push({ id: "feeds", title: "Feeds", html: feedsSection(v, o, csrfField) });
  sections.push(...extra);
  sections.push({
    id: "lease", title: "Lease",
    html: `<p>${e(town)}: ${e(formatCents(v.lease.price_cents))} a month, since ${e(date(v.lease.activated_at))}.</p>
${v.lease.cancel_at
    ? `<p data-testid="lease-status">Cancelled. The town stays yours until ${e(when(v.lease.cancel_at))}, the end of the period you paid for; then it is free for someone else.</p>`
    : `<p data-testid="lease-status">Active. The current period is paid until ${e(when(v.paidThrough))}.</p>
<form method="post" action="/operator/towns/${e(v.lease.slug)}/lease/cancel">${csrfField}
<p class="status">${v.payouts.mode === "stripe" ? "Cancelling happens in Stripe's billing page; the town stays yours until the end of the paid period." : "The town stays yours until the end of the paid period; nothing more is charged."}</p>
<button type="submit" class="secondary">${v.payouts.mode === "stripe" ? "Manage billing or cancel" : "Cancel the lease"}</button></form>`}`,
  });

  return `${o.notice ? `<p class="notice" role="status">${e(o.notice)}</p>` : ""}
<div class="whoami"><p>Signed in as <strong>${e(o.email)}</strong>. <a href="/operator">Your towns</a> · <a href="/${e(v.lease.slug)}">${e(v.lease.town_name)}'s page</a></p> ${signOutForm(o.csrf)}</div>
<nav class="desk" aria-label="Desk sections"><ul>${sections.map((s) => `<li><a href="#${s.id}">${e(s.title)}</a></li>`).join("")}</ul></nav>
${sections.map((s) => `<section class="desk" id="${s.id}" aria-labelledby="${s.id}-h"><h2 id="${s.id}-h">${e(s.title)}</h2>\n${s.html}\n</section>`).join("\n")}`;
}
