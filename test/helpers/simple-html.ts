const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Minimal edition HTML for seeded test editions. */
export function renderSimpleHtml(subject: string, body: string): string {
  return `<h1>${escape(subject)}</h1>\n<p>${escape(body)}</p>\n`;
}
