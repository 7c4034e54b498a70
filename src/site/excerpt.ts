// A short excerpt of an edition for cards and lists: its first paragraph of news (the weather
// line, or whatever comes first after the greeting) as plain text, cut at a word.

const EXCERPT_MAX = 160;

/** Markdown inline syntax and emoji removed; escapes undone. */
function plain(line: string): string {
  return line
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[*_`]+/g, "")
    .replace(/\\([\\`*_[\]<>|~&@:.#+=()!-])/g, "$1")
    .replace(/\p{Extended_Pictographic}\uFE0F?/gu, "")
    .replace(/\s+/g, " ")
    .trim();
}

export function editionExcerpt(markdown: string, max = EXCERPT_MAX): string {
  const paragraphs = markdown.replace(/\r\n?/g, "\n").split(/\n{2,}/).map((p) => p.trim());
  const news = paragraphs.find((p) => p && !/^(#|\||-{3,}|Good morning,)/.test(p) && !/^[-*] /.test(p));
  if (!news) return "";
  const text = plain(news);
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(" "), 40)).replace(/[\s,;:]+$/, "")}…`;
}
