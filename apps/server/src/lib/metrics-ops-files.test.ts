/**
 * The operator files under ops/ against the app (docs/decisions/071): promtool is not available
 * here, so the rule file is parsed with a YAML library, and every metric an alert or a dashboard
 * panel names must be one the registry exports. A renamed metric fails here, not at 3 a.m.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { registry } from './metrics.ts';

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const alertsPath = path.join(repositoryRoot, 'ops/prometheus/alerts.yml');
const dashboardPath = path.join(repositoryRoot, 'ops/grafana/farmcam-dashboard.json');
const alertTestsPath = path.join(repositoryRoot, 'ops/prometheus/alerts.test.yml');

/** promtool (Debian's `prometheus` package), where installed: it checks and runs the rules. */
const promtool = (() => {
  try {
    execFileSync('promtool', ['--version'], { stdio: 'pipe' });
    return 'promtool';
  } catch {
    return undefined;
  }
})();

/** Prometheus's own series, which no app exports. */
const prometheusSeries = new Set(['up']);
const promqlKeywords = new Set([
  'and',
  'or',
  'unless',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'offset',
  'bool',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression reads: identifiers left once strings, label matchers,
 * range selectors and grouping clauses are removed, other than functions (followed by `(`) and
 * keywords. Enough for our expressions; not a PromQL parser.
 */
export function metricNamesIn(expression: string): string[] {
  const stripped = expression
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const word = match[0];
    const before = stripped[match.index - 1] ?? ' ';
    // The unit of a number or duration (1e-9, 5m), or part of a $variable.
    if (/[0-9.$]/.test(before)) continue;
    if (
      stripped
        .slice(match.index + word.length)
        .trimStart()
        .startsWith('(')
    )
      continue;
    if (promqlKeywords.has(word.toLowerCase())) continue;
    names.add(word);
  }
  return [...names];
}

/** Every series name the app exports, histograms with their _bucket, _sum and _count. */
async function exportedSeriesNames(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const metric of await registry.getMetricsAsJSON()) {
    names.add(metric.name);
    // prom-client's types declare a numeric enum; at run time the type is its name.
    const type = String(metric.type);
    if (type === 'histogram' || type === 'summary') {
      names.add(`${metric.name}_sum`);
      names.add(`${metric.name}_count`);
    }
    if (type === 'histogram') names.add(`${metric.name}_bucket`);
  }
  return names;
}

interface AlertRule {
  alert?: unknown;
  expr?: unknown;
  for?: unknown;
  labels?: { severity?: unknown };
  annotations?: { summary?: unknown };
}

describe('metricNamesIn', () => {
  it('finds the metrics and nothing else in an expression', () => {
    expect(
      metricNamesIn(
        'sum by (le, route) (rate(farmcam_a_bucket{job=~"x", route!="/b"}[5m])) / ' +
          'clamp_min(sum(rate(farmcam_b_total[$__rate_interval] offset 1d)), 1e-9) > 0.5 ' +
          'and on (queue) max without (instance) (up) or vector(0)',
      ),
    ).toEqual(['farmcam_a_bucket', 'farmcam_b_total', 'up']);
  });
});

describe('ops/prometheus/alerts.yml', () => {
  const document = parse(fs.readFileSync(alertsPath, 'utf8')) as {
    groups: { name: string; rules: AlertRule[] }[];
  };
  const rules = document.groups.flatMap((group) => group.rules);

  it('has the alerts that matter, each complete', () => {
    expect(rules.map((rule) => rule.alert)).toEqual(
      expect.arrayContaining([
        'FarmcamInstanceDown',
        'FarmcamHighServerErrorRate',
        'FarmcamJobBacklog',
        'FarmcamRecordingsFailing',
        'FarmcamPaymentFailuresSpike',
        'FarmcamMailFailing',
        'FarmcamDatabaseUnreachable',
        'FarmcamStorageFailing',
        'FarmcamDiskAlmostFull',
        'FarmcamDiskFilling',
        'FarmcamMailQueueBacklog',
        'FarmcamAlertDeliveryFailing',
      ]),
    );
    expect(new Set(rules.map((rule) => rule.alert)).size).toBe(rules.length);
    for (const rule of rules) {
      expect(rule.alert, JSON.stringify(rule)).toMatch(/^[A-Z][A-Za-z]+$/);
      expect(typeof rule.expr, `${String(rule.alert)}: expr`).toBe('string');
      expect(rule.for, `${String(rule.alert)}: for`).toMatch(/^\d+[smhd]$/);
      expect(rule.labels?.severity, `${String(rule.alert)}: severity`).toMatch(/^(page|ticket)$/);
      expect(typeof rule.annotations?.summary, `${String(rule.alert)}: summary`).toBe('string');
    }
  });

  it('watches the database, the clip storage and the disk with the metrics made for them', () => {
    const exprOf = (name: string) => String(rules.find((rule) => rule.alert === name)?.expr);
    expect(metricNamesIn(exprOf('FarmcamDatabaseUnreachable'))).toEqual([
      'farmcam_database_unreachable_seconds',
    ]);
    expect(metricNamesIn(exprOf('FarmcamStorageFailing'))).toEqual([
      'farmcam_storage_operations_total',
    ]);
    for (const name of ['FarmcamDiskAlmostFull', 'FarmcamDiskFilling']) {
      expect(metricNamesIn(exprOf(name)).sort()).toEqual([
        'farmcam_data_dir_free_bytes',
        'farmcam_data_dir_size_bytes',
      ]);
    }
  });

  it('keeps probe answers out of the error-rate alert', () => {
    const errorRate = String(
      rules.find((rule) => rule.alert === 'FarmcamHighServerErrorRate')?.expr,
    );
    // Its series count no probe (plugins/metrics.ts); probes have their own.
    expect(metricNamesIn(errorRate)).not.toContain('farmcam_probe_requests_total');
    expect(metricNamesIn(errorRate)).toEqual([
      'farmcam_http_server_errors_total',
      'farmcam_http_requests_total',
    ]);
  });

  it('reads only metrics the app exports (and Prometheus’s own up)', async () => {
    const exported = await exportedSeriesNames();
    for (const rule of rules) {
      const names = metricNamesIn(String(rule.expr));
      expect(names.length, `${String(rule.alert)} reads no metric`).toBeGreaterThan(0);
      for (const name of names) {
        expect(
          exported.has(name) || prometheusSeries.has(name),
          `${String(rule.alert)} reads ${name}, which the app does not export`,
        ).toBe(true);
      }
    }
  });
});

describe.skipIf(!promtool)('the rules under promtool (where installed)', () => {
  it('passes promtool check rules', () => {
    expect(execFileSync(promtool!, ['check', 'rules', alertsPath], { encoding: 'utf8' })).toMatch(
      /SUCCESS: \d+ rules found/,
    );
  });

  it('fires, and stays quiet, as ops/prometheus/alerts.test.yml expects', () => {
    // Outages, storage failures, a full and a filling disk, and probe 503s that page no one.
    expect(
      execFileSync(promtool!, ['test', 'rules', alertTestsPath], { encoding: 'utf8' }),
    ).toMatch(/SUCCESS/);
  });
});

describe('ops/grafana/farmcam-dashboard.json', () => {
  const dashboard = JSON.parse(fs.readFileSync(dashboardPath, 'utf8')) as {
    uid: string;
    panels: { title: string; type: string; targets?: { expr: string }[] }[];
  };

  it('reads only metrics the app exports in every panel', async () => {
    const exported = await exportedSeriesNames();
    const graphPanels = dashboard.panels.filter((panel) => panel.type !== 'row');
    expect(graphPanels.length).toBeGreaterThan(10);
    for (const panel of graphPanels) {
      expect(panel.targets?.length, `${panel.title} has no query`).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) {
        const names = metricNamesIn(target.expr);
        expect(names.length, `${panel.title} reads no metric`).toBeGreaterThan(0);
        for (const name of names) {
          expect(
            exported.has(name) || prometheusSeries.has(name),
            `panel "${panel.title}" reads ${name}, which the app does not export`,
          ).toBe(true);
        }
      }
    }
  });
});
