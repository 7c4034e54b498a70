// `node scripts/bench/cpu-profile-top.ts FILE.cpuprofile [N]`: the N functions with the most self time
// in a `node --cpu-prof` profile, and the share of the profile's time in each (idle included), so a
// before/after pair can be compared in docs/performance.md without a browser.
import fs from "node:fs";
import path from "node:path";

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

const file = process.argv[2]!;
const n = Number(process.argv[3] ?? 15);
const p = JSON.parse(fs.readFileSync(file, "utf8")) as Profile;
const byId = new Map(p.nodes.map((x) => [x.id, x]));
const self = new Map<string, number>();
let total = 0;
p.samples.forEach((id, i) => {
  const dt = p.timeDeltas[i] ?? 0;
  total += dt;
  const f = byId.get(id)!.callFrame;
  const where = f.url ? `${path.basename(f.url.replace(/^file:\/\//, ""))}:${f.lineNumber + 1}` : "";
  const key = `${f.functionName || "(anonymous)"} ${where}`.trim();
  self.set(key, (self.get(key) ?? 0) + dt);
});
console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled`);
for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, n)) {
  console.log(`  ${(us / 1e6).toFixed(2).padStart(7)} s  ${((us / total) * 100).toFixed(1).padStart(5)} %  ${key}`);
}
