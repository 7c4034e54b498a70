/**
 * The listing policy's screen (content/listing-policy.md states it for people; a unit test keeps the
 * two in step: every rule id and reason below appears there). Pure and deterministic: the same
 * listing and the same facts give the same verdict, and every verdict names the rule that decided it.
 * Rules are checked in order; the first `reject` wins, otherwise the first `hold`.
 */
import { parse as parseDomain } from "tldts";

export interface ScreenInput {
  product: "event" | "business";
  title: string;
  description: string;
  url: string;
  buyerEmail: string;
  /** Events: start (YYYY-MM-DD or ISO date-time) and optional end. */
  startsAt?: string;
  endsAt?: string;
  /** Free text the buyer gave about where: the event's venue, the business's address or area. */
  place?: string;
  category?: string;
}

export interface ScreenFacts {
  /** Today in the town's timezone (YYYY-MM-DD): an event before it is in the past. */
  today: string;
  /** True when the buyer's email domain is a disposable-mail provider. */
  disposableEmail: boolean;
  /** Reputation domains (`reputationDomain`) of URLs seen in rejected orders. */
  rejectedDomains: ReadonlySet<string>;
}

export type Verdict =
  | { action: "pass" }
  | { action: "reject" | "hold"; rule: string; reason: string; field: string };

interface Rule {
  id: string;
  action: "reject" | "hold";
  reason: string;
  check: (i: ScreenInput, f: ScreenFacts) => string | undefined; // the offending field, if any
}

/** Lowercased, accents folded, punctuation as spaces: words are matched whole. */
function normal(s: string): string {
  return ` ${s.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/[^a-z0-9$]+/g, " ")} `;
}

function words(list: string[]): (text: string) => boolean {
  const needles = list.map((w) => ` ${normal(w).trim()} `);
  return (text) => {
    const t = normal(text);
    return needles.some((n) => t.includes(n));
  };
}

/** The text fields a rule about content reads, in the order an issue names them. */
function textField(i: ScreenInput, match: (s: string) => boolean): string | undefined {
  if (match(i.title)) return "title";
  if (match(i.description)) return "description";
  if (match(decodeURIComponentSafe(i.url).replace(/[/._\-?=&]+/g, " "))) return "url";
  if (i.category && match(i.category)) return "category";
  return undefined;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase().replace(/^www\./, "");
  } catch {
    return undefined;
  }
}

/**
 * Shared platforms: sites where many unrelated businesses and organisers have their pages (social
 * networks, link-in-bio pages, marketplaces, calendar, ticketing and fundraising hosts, big portals).
 * A rejected listing on one of them says nothing about the next person's page there, so domain
 * reputation (rule `rejected-domain`) never applies to them: a rejected listing linking to
 * facebook.com must not hold the next café's Facebook page. Registrable domains (Public Suffix
 * List); subdomains are included (m.facebook.com, calendar.google.com).
 */
export const SHARED_PLATFORMS: ReadonlySet<string> = new Set([
  // social networks
  "facebook.com", "fb.com", "fb.me", "instagram.com", "threads.net", "x.com", "twitter.com", "tiktok.com", "youtube.com", "youtu.be",
  "linkedin.com", "pinterest.com", "reddit.com", "nextdoor.com", "tumblr.com", "bsky.app", "mastodon.social", "snapchat.com", "whatsapp.com",
  // link-in-bio pages
  "linktr.ee", "beacons.ai", "bio.link", "lnk.bio", "linkin.bio", "campsite.bio", "solo.to", "taplink.cc", "allmylinks.com",
  // marketplaces, listings and delivery
  "etsy.com", "ebay.com", "amazon.com", "craigslist.org", "yelp.com", "tripadvisor.com", "airbnb.com", "vrbo.com", "doordash.com",
  "ubereats.com", "grubhub.com", "opentable.com", "resy.com", "toasttab.com", "squareup.com", "thumbtack.com", "angi.com", "houzz.com",
  // calendars, events and ticketing
  "eventbrite.com", "meetup.com", "lu.ma", "partiful.com", "evite.com", "allevents.in", "ticketmaster.com", "livenation.com", "axs.com",
  "stubhub.com", "seatgeek.com", "dice.fm", "tixr.com", "ticketweb.com", "ticketleap.com", "brownpapertickets.com", "universe.com",
  "humanitix.com", "splashthat.com", "simpletix.com", "showclix.com", "eventzilla.net", "signupgenius.com",
  // fundraising and forms
  "gofundme.com", "givebutter.com", "zeffy.com", "jotform.com", "typeform.com",
  // portals whose pages belong to their users (Google Sites, Calendar, Maps, Forms; Outlook calendars)
  "google.com", "goo.gl", "live.com", "office.com", "apple.com", "microsoft.com",
]);

/**
 * Site builders not in the Public Suffix List whose subdomains are separate sites (joe.wordpress.com):
 * there the site's own host is its identity. Builders listed in the PSL (github.io, myshopify.com,
 * wixsite.com, square.site, blogspot.com, netlify.app, ...) already give each site its own domain.
 */
const SUBDOMAIN_SITES: ReadonlySet<string> = new Set(["wordpress.com", "weebly.com", "squarespace.com", "godaddysites.com", "webflow.io", "carrd.co", "substack.com", "mailchimpsites.com", "business.site", "site123.me", "jimdosite.com", "strikingly.com"]);

/**
 * Whose reputation a listing's link carries: the business's own registrable domain by the Public
 * Suffix List (tldts, private suffixes included, so joe.github.io is Joe's), a site builder's
 * subdomain, or nothing for a shared platform, an address without a registrable domain (an IP) or
 * a link that does not parse.
 */
export function reputationDomain(url: string): string | undefined {
  const parsed = parseDomain(url, { allowPrivateDomains: true });
  const domain = parsed.domain?.toLowerCase();
  if (!domain || parsed.isIp) return undefined;
  if (SHARED_PLATFORMS.has(domain)) return undefined;
  if (SUBDOMAIN_SITES.has(domain)) {
    const sub = parsed.subdomain?.toLowerCase().replace(/^www\.?/, "");
    return sub ? `${sub}.${domain}` : undefined;
  }
  return domain;
}

export const URL_SHORTENERS = [
  "bit.ly", "tinyurl.com", "t.co", "goo.gl", "ow.ly", "is.gd", "buff.ly", "rebrand.ly", "cutt.ly", "shorturl.at",
  "tiny.cc", "rb.gy", "t.ly", "bl.ink", "lnkd.in", "s.id", "v.gd", "qr.ae", "soo.gd", "short.io",
];

const ADULT = words(["porn", "porno", "pornography", "xxx", "escort", "escorts", "strip club", "stripper", "strippers", "nude", "nudes", "onlyfans", "camgirl", "sex show", "adult entertainment", "erotic"]);
const WEAPONS = words(["gun sale", "guns for sale", "firearm sale", "firearms for sale", "ammo sale", "ammunition sale", "ar 15", "ar15", "assault rifle", "ghost gun", "silencer", "suppressor", "explosives", "gun show"]);
const DRUGS = words(["cocaine", "heroin", "meth", "methamphetamine", "fentanyl", "mdma", "ecstasy pills", "lsd", "psilocybin", "magic mushrooms", "weed delivery", "cannabis delivery", "marijuana delivery", "thc gummies", "kratom", "oxycodone", "xanax"]);
const GAMBLING = words(["casino", "online casino", "sports betting", "sportsbook", "poker tournament", "bet now", "betting odds", "lottery tickets", "bingo jackpot", "gambling"]);
const SCAMS = words(["get rich quick", "make money fast", "guaranteed income", "guaranteed returns", "double your money", "work from home and earn", "passive income", "crypto giveaway", "crypto investment", "forex signals", "pyramid scheme", "mlm", "multi level marketing", "no risk investment", "wire transfer", "gift card payment", "be your own boss"]);
const HATE = words(["white power", "white supremacy", "nazi", "neo nazi", "kkk", "ku klux klan", "heil hitler", "racial purity", "ethnic cleansing", "master race"]);
const POLITICAL = words(["vote for", "vote against", "re elect", "reelect", "campaign rally", "political rally", "paid for by", "super pac", "pac", "ballot measure", "candidate for", "for congress", "for senate", "for mayor", "for governor", "for president", "democratic party", "republican party"]);
const FOREIGN = words(["canada", "mexico", "united kingdom", "england", "london", "paris", "france", "germany", "berlin", "toronto", "vancouver", "montreal", "mexico city", "tijuana", "cancun", "australia", "sydney", "tokyo", "japan", "china", "beijing", "india", "dubai"]);
const HEALTH = words(["cure", "cures", "cured", "miracle", "detox", "weight loss", "lose weight", "fat burning", "anti aging", "clinically proven", "doctor approved", "heals", "healing", "supplement", "supplements", "cbd", "immune boost", "reverses", "treats cancer", "cancer", "diabetes", "covid"]);

/** Letters mostly in capitals (at least 12 letters, over 70% upper case): shouting is held for a look. */
function shouting(s: string): boolean {
  const letters = s.replace(/[^A-Za-z]/g, "");
  if (letters.length < 12) return false;
  const upper = letters.replace(/[^A-Z]/g, "").length;
  return upper / letters.length > 0.7;
}

function day(s: string | undefined): string | undefined {
  return s && /^\d{4}-\d{2}-\d{2}/.test(s) ? s.slice(0, 10) : undefined;
}

export const RULES: ReadonlyArray<Rule> = [
  { id: "url-scheme", action: "reject", reason: "The link must be an http or https web address.",
    check: (i) => (/^https?:\/\//i.test(i.url) && hostOf(i.url) ? undefined : "url") },
  { id: "url-shortener", action: "reject", reason: "Shortened links hide where they lead; give the full address.",
    check: (i) => { const h = hostOf(i.url); return h && URL_SHORTENERS.some((s) => h === s || h.endsWith(`.${s}`)) ? "url" : undefined; } },
  { id: "disposable-email", action: "reject", reason: "The buyer email is on a disposable-mail service; use an address you keep.",
    check: (_i, f) => (f.disposableEmail ? "buyerEmail" : undefined) },
  { id: "past-event", action: "reject", reason: "The event is in the past (or ends before it starts).",
    check: (i, f) => {
      if (i.product !== "event") return undefined;
      const start = day(i.startsAt), end = day(i.endsAt);
      if (start && start < f.today) return "startsAt";
      if (end && ((start && end < start) || end < f.today)) return "endsAt";
      return undefined;
    } },
  { id: "outside-us", action: "reject", reason: "Listings are for places and events in the United States only.",
    check: (i) => (i.place && FOREIGN(i.place) ? (i.product === "event" ? "venue" : "address") : textField(i, FOREIGN)) },
  { id: "adult", action: "reject", reason: "Adult or sexual content is not accepted.", check: (i) => textField(i, ADULT) },
  { id: "weapons", action: "reject", reason: "Sales of weapons, ammunition or explosives are not accepted.", check: (i) => textField(i, WEAPONS) },
  { id: "drugs", action: "reject", reason: "Illegal drugs and drug sales are not accepted.", check: (i) => textField(i, DRUGS) },
  { id: "gambling", action: "reject", reason: "Gambling, betting and casinos are not accepted.", check: (i) => textField(i, GAMBLING) },
  { id: "scams", action: "reject", reason: "Get-rich-quick schemes, investment pitches and scams are not accepted.", check: (i) => textField(i, SCAMS) },
  { id: "hate", action: "reject", reason: "Hate speech and extremist content are not accepted.", check: (i) => textField(i, HATE) },
  { id: "political", action: "reject", reason: "Political advertising (candidates, parties, ballot measures) is not accepted.", check: (i) => textField(i, POLITICAL) },
  { id: "health-claims", action: "hold", reason: "Health or medical claims need a person to look before a payment link is issued.", check: (i) => textField(i, HEALTH) },
  { id: "all-caps", action: "hold", reason: "Text written mostly in capital letters needs a person to look.",
    check: (i) => (shouting(i.title) ? "title" : shouting(i.description) ? "description" : undefined) },
  { id: "rejected-domain", action: "hold", reason: "A person rejected a listing linking to this domain in this town in the last 90 days; a person will look.",
    check: (i, f) => { const d = reputationDomain(i.url); return d && f.rejectedDomains.has(d) ? "url" : undefined; } },
];

export function screenListing(input: ScreenInput, facts: ScreenFacts): Verdict {
  let hold: Verdict | undefined;
  for (const rule of RULES) {
    const field = rule.check(input, facts);
    if (!field) continue;
    if (rule.action === "reject") return { action: "reject", rule: rule.id, reason: rule.reason, field };
    hold ??= { action: "hold", rule: rule.id, reason: rule.reason, field };
  }
  return hold ?? { action: "pass" };
}

/** The host a URL's "seen in rejected orders" rule keys on. */
export const urlHost = hostOf;
