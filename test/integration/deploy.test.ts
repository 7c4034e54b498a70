import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../src/config/paths.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// deploy/ as the operator uses it: the alert rules and the scrape config pass promtool, the systemd
// unit passes systemd-analyze verify, and every metric the dashboard and the rules name is one that
// /metrics exposes (a renamed metric would leave a panel empty and an alert silent).

const run = promisify(execFile);
const DEPLOY = path.join(PROJECT_ROOT, "deploy");
let server: TestServer;
let exposed: Set<string>;

beforeAll(async () => {
  server = await startTestServer({ METRICS_PORT: "0", MAIL_SENDER: "off" });
  const text = await (await fetch(server.metricsUrl!)).text();
  exposed = new Set<string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    exposed.add(m[1]);
    if (m[2] === "histogram") for (const s of ["_bucket", "_count", "_sum"]) exposed.add(m[1] + s);
  }
});
afterAll(async () => {
  await server?.stop();
});

/** The metric names in a PromQL expression (ours and the process's; functions and label names aside). */
const metricsIn = (expr: string) => [...expr.replace(/\{[^}]*\}/g, "").matchAll(/\b((?:citydaily|process|nodejs)_[a-z0-9_]+)\b/g)].map((m) => m[1]);

describe("deploy/", () => {
  it("promtool accepts the alert rules and the scrape config", async () => {
    const rules = fs.readdirSync(DEPLOY).filter((f) => f.endsWith(".rules.yml")).map((f) => path.join(DEPLOY, f));
    expect(rules.length).toBeGreaterThan(0);
    const checked = await run("promtool", ["check", "rules", ...rules]);
    expect(checked.stdout).toMatch(/SUCCESS: \d+ rules found/);
    const config = await run("promtool", ["check", "config", path.join(DEPLOY, "prometheus.yml")]);
    expect(config.stdout).toMatch(/is valid prometheus config file syntax/);
  });

  it("every alert has the expected ones and names only metrics /metrics exposes", () => {
    // Each rule from its `- alert:` line to the next: its expression (and the metrics its text names).
    const rules = fs.readFileSync(path.join(DEPLOY, "citydaily.rules.yml"), "utf8").split(/^\s*- alert: /m).slice(1)
      .map((text) => ({ alert: text.split("\n")[0].trim(), text }));
    expect(rules.map((r) => r.alert)).toEqual(expect.arrayContaining([
      "CitydailyMorningDidNotRun", "CitydailyOutboxBackingUp", "CitydailyReplicationLagging", "CitydailyNoRecentBackup", "CitydailySourceFailingAllMorning", "CitydailyNotReady",
    ]));
    for (const rule of rules) {
      expect(metricsIn(rule.text).length + (rule.text.includes("up{") ? 1 : 0), rule.alert).toBeGreaterThan(0);
      for (const name of metricsIn(rule.text)) expect(exposed, `${rule.alert}: ${name}`).toContain(name);
    }
  });

  it("the Grafana dashboard is JSON whose every expression names metrics /metrics exposes", () => {
    const dashboard = JSON.parse(fs.readFileSync(path.join(DEPLOY, "grafana-dashboard.json"), "utf8")) as { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };
    const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => ({ title: p.title, expr: t.expr })));
    expect(exprs.length).toBeGreaterThan(15);
    const named = new Set<string>();
    for (const { title, expr } of exprs) {
      const names = metricsIn(expr);
      expect(names.length, `${title}: ${expr}`).toBeGreaterThan(0);
      for (const name of names) {
        expect(exposed, `${title}: ${name}`).toContain(name);
        named.add(name);
      }
    }
    // The figures the dashboard is for.
    for (const name of ["citydaily_http_request_duration_seconds_bucket", "citydaily_outbox_pending_messages", "citydaily_morning_towns_overdue", "citydaily_source_requests_total", "citydaily_replication_seconds_since_replicated", "citydaily_backup_last_success_timestamp_seconds", "citydaily_sqlite_wal_bytes"]) {
      expect(named).toContain(name);
    }
  });

  it("systemd-analyze verify accepts the unit", async () => {
    // The unit runs /usr/bin/npm (Node 24 from a package); where npm is elsewhere, a copy names that one.
    let unit = path.join(DEPLOY, "citydaily.service");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-unit-"));
    try {
      if (!fs.existsSync("/usr/bin/npm")) {
        const npm = path.join(path.dirname(process.execPath), "npm");
        const copy = path.join(dir, "citydaily.service");
        fs.writeFileSync(copy, fs.readFileSync(unit, "utf8").replace("ExecStart=/usr/bin/npm start", `ExecStart=${fs.existsSync(npm) ? npm : process.execPath} start`));
        unit = copy;
      }
      const { stdout, stderr } = await run("systemd-analyze", ["verify", unit]);
      expect(stdout + stderr).toBe("");
      const text = fs.readFileSync(unit, "utf8");
      for (const line of ["Restart=on-failure", "EnvironmentFile=/etc/citydaily/citydaily.env", "StateDirectory=citydaily", "Environment=DATA_DIR=/var/lib/citydaily", "ProtectSystem=strict", "NoNewPrivileges=yes"]) expect(text).toContain(line);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
