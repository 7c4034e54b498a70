import type { TownSource } from "../../contract/resources.ts";

// A town's sources as readers see them credited: one line per outlet (the City of Ely's news, calendar
// and agendas are one source to a reader), not one per feed address.

export interface Outlet {
  name: string;
  url: string;
  /** What it gives: news, events and meetings, or both. */
  kinds: Array<TownSource["kind"]>;
  countyWide: boolean;
  addedBy: TownSource["addedBy"];
  /** Failing when every one of its feeds is failing. */
  status: TownSource["status"];
  lastCheckedAt: string | null;
}

export function outletsOf(sources: TownSource[]): Outlet[] {
  const byKey = new Map<string, Outlet>();
  for (const s of sources) {
    const key = `${s.name}\n${s.url}`;
    const o = byKey.get(key);
    if (!o) {
      byKey.set(key, { name: s.name, url: s.url, kinds: [s.kind], countyWide: s.countyWide, addedBy: s.addedBy, status: s.status, lastCheckedAt: s.lastCheckedAt });
      continue;
    }
    if (!o.kinds.includes(s.kind)) o.kinds.push(s.kind);
    o.countyWide ||= s.countyWide;
    if (s.status === "ok") o.status = "ok";
    if (s.lastCheckedAt && (!o.lastCheckedAt || s.lastCheckedAt > o.lastCheckedAt)) o.lastCheckedAt = s.lastCheckedAt;
  }
  for (const o of byKey.values()) o.kinds.sort((a, b) => (a === "news" ? -1 : b === "news" ? 1 : 0));
  return [...byKey.values()];
}

/** "news", "events and meetings", or "news, events and meetings". */
export function outletGives(o: Pick<Outlet, "kinds">): string {
  return o.kinds.map((k) => (k === "news" ? "news" : "events and meetings")).join(", ");
}
