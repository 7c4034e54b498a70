// What the weekly email takes from the week's stored editions: their headlines, the warnings still
// in force in the latest, the disaster declarations they told. Read back from each edition's
// markdown, which src/core/edition/sections.ts wrote line by line: the text stays the escaped
// markdown it was, so it goes into the weekly as safely as it went into the edition.

/** A headline an edition showed. */
export interface WeekHeadline {
  /** Escaped markdown, as the edition wrote it. */
  title: string;
  url: string | null;
  /** "The Ely Times" or "Elko Daily, county-wide" (escaped markdown). */
  outlet: string;
  /** The date of the edition that showed it. */
  date: string;
}

/** A warning still in force, or a declaration told this week. */
export interface InForce {
  /** One markdown line without its list dash. */
  line: string;
  /** The warning's event as plain text ("Winter Storm Warning"); absent for a declaration. */
  event?: string;
}

/** The sections of an edition's markdown: heading (without "## ") and its lines. */
function sectionsOf(markdown: string): Array<{ heading: string; lines: string[] }> {
  const out: Array<{ heading: string; lines: string[] }> = [];
  for (const line of markdown.split("\n")) {
    if (line.startsWith("## ")) out.push({ heading: line.slice(3).trim(), lines: [] });
    else out.at(-1)?.lines.push(line);
  }
  return out;
}

const HEADLINE_SECTIONS = new Set(["Top story", "Local headlines", "More local headlines"]);
/** `[title](url) (outlet)`: the title may hold escaped brackets; an outlet ends the line in parentheses. */
const LINKED = /^\[((?:\\.|[^\]\\])+)\]\((\S+?)\) \(([^()]+)\)$/;
const UNLINKED = /^(.+?) \(([^()]+)\)$/;

/** The headlines of one edition, in its order (the top story first). */
export function headlinesOf(markdown: string, date: string): WeekHeadline[] {
  const out: WeekHeadline[] = [];
  for (const s of sectionsOf(markdown)) {
    if (!HEADLINE_SECTIONS.has(s.heading)) continue;
    for (const raw of s.lines) {
      const line = raw.replace(/^- /, "").trim();
      if (!line) continue;
      const linked = LINKED.exec(line);
      if (linked) out.push({ title: linked[1]!, url: linked[2]!, outlet: linked[3]!, date });
      else {
        const plain = UNLINKED.exec(line);
        if (plain) out.push({ title: plain[1]!, url: null, outlet: plain[2]!, date });
      }
    }
  }
  return out;
}

/** Markdown as the words a reader sees: escapes, emphasis and links' targets gone. */
export function markdownWords(s: string): string {
  return s.replace(/\]\([^)]*\)/g, "]").replace(/[[\]]/g, "").replace(/\*\*/g, "").replace(/\\(.)/g, "$1").replace(/\s+/g, " ").trim();
}

/**
 * The week's headlines without repeats (the same link, or the same words from two outlets or
 * mornings), newest edition first and in each edition's order, at most `max`.
 */
export function weekHeadlines(editions: Array<{ date: string; markdown: string }>, max: number): WeekHeadline[] {
  const seen = new Set<string>();
  const out: WeekHeadline[] = [];
  for (const e of [...editions].sort((a, b) => b.date.localeCompare(a.date))) {
    for (const h of headlinesOf(e.markdown, e.date)) {
      const words = `t:${markdownWords(h.title).toLowerCase()}`;
      if (seen.has(words) || (h.url && seen.has(`u:${h.url}`))) continue;
      seen.add(words);
      if (h.url) seen.add(`u:${h.url}`);
      out.push(h);
      if (out.length === max) return out;
    }
  }
  return out;
}

const ISSUED_BY_NWS = "Issued by the National Weather Service";

/**
 * The warnings an edition carried (in force when it was composed): each warning section's event and
 * until when, and its "Also in effect" lines.
 */
export function warningsOf(markdown: string): InForce[] {
  const out: InForce[] = [];
  for (const s of sectionsOf(markdown)) {
    if (!s.lines.some((l) => l.startsWith(ISSUED_BY_NWS))) continue;
    const until = s.lines.map((l) => /^\*\*((?:Until|From) [^*]+?)\.\*\*/.exec(l)?.[1]).find(Boolean);
    const link = s.lines.map((l) => /\[Read the full [^\]]+\]\((\S+?)\)/.exec(l)?.[1]).find(Boolean);
    out.push({ event: markdownWords(s.heading), line: `**${s.heading}**${until ? `, ${until.charAt(0).toLowerCase()}${until.slice(1)}` : ""}.${link ? ` [Details](${link})` : ""}` });
    for (const l of s.lines) {
      const also = /^Also in effect: \*\*(.+?)\*\*(.*)$/.exec(l);
      if (also) out.push({ event: markdownWords(also[1]!), line: `**${also[1]}**${also[2]}` });
    }
  }
  return out;
}

/** The disaster declarations the editions told (a declaration stays in force for months), each once. */
export function declarationsOf(editions: Array<{ markdown: string }>): InForce[] {
  const seen = new Set<string>();
  const out: InForce[] = [];
  for (const e of editions) {
    for (const l of e.markdown.split("\n")) {
      if (!l.startsWith("- **Disaster declaration:**") || seen.has(l)) continue;
      seen.add(l);
      out.push({ line: l.slice(2) });
    }
  }
  return out;
}
