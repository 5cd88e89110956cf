/**
 * Lighthouse (mobile, the default config: simulated slow 4G and a mid-range phone) on `/` in
 * Debian's headless Chromium, offline. A Lighthouse failure is reported as unmeasured metrics with
 * the reason; it does not stop the rest of the bench. Each metric is the median of
 * BENCH_LIGHTHOUSE_RUNS runs (default 3).
 */
import fs from 'node:fs';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { onAbnormalExit } from '../lib/processes.ts';
import { metric, type Metric, type Scenario } from '../lib/types.ts';

const name = 'lighthouse';
const chromePath = process.env.CHROME_PATH ?? '/usr/bin/chromium';
const chromeFlags = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const runTimeoutMs = 180_000;

const timingAudits = {
  'first-contentful-paint': 'FCP',
  'largest-contentful-paint': 'LCP',
  'total-blocking-time': 'TBT',
  'speed-index': 'Speed Index',
} as const;

interface RunSummary {
  performance: number | null;
  accessibility: number | null;
  timingsMs: Record<string, number | null>;
  cumulativeLayoutShift: number | null;
  failedAccessibilityAudits: string[];
  /** Performance audits with estimated savings, biggest first: where the score goes. */
  opportunities: string[];
  runWarnings: string[];
}

async function runOnce(url: string): Promise<RunSummary> {
  // chrome-launcher throws a missing binary from an event handler, out of reach of try/catch.
  try {
    fs.accessSync(chromePath, fs.constants.X_OK);
  } catch {
    throw new Error(`No Chromium at ${chromePath} (set CHROME_PATH)`);
  }
  const chrome = await chromeLauncher.launch({ chromePath, chromeFlags, logLevel: 'silent' });
  const forget = onAbnormalExit(() => chrome.kill());
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Lighthouse took longer than ${runTimeoutMs / 1000} s`)),
        runTimeoutMs,
      );
    });
    const result = await Promise.race([
      lighthouse(url, {
        port: chrome.port,
        output: 'json',
        logLevel: 'error',
        onlyCategories: ['performance', 'accessibility'],
      }),
      timeout,
    ]);
    if (!result) throw new Error('Lighthouse returned no result');
    const { lhr } = result;
    if (lhr.runtimeError) {
      throw new Error(`${lhr.runtimeError.code}: ${lhr.runtimeError.message}`);
    }
    const score = (id: string) => {
      const value = lhr.categories[id]?.score;
      return typeof value === 'number' ? Math.round(value * 100) : null;
    };
    const numeric = (id: string) => lhr.audits[id]?.numericValue ?? null;
    const accessibilityRefs = lhr.categories.accessibility?.auditRefs ?? [];
    const opportunities = Object.values(lhr.audits)
      .map((audit) => {
        const savings = audit.metricSavings ?? {};
        const fcpLcpMs = (savings.FCP ?? 0) + (savings.LCP ?? 0);
        const tbtMs = savings.TBT ?? 0;
        return { audit, weight: fcpLcpMs + tbtMs, savings };
      })
      .filter(({ audit, weight }) => weight > 0 && (audit.score ?? 1) < 1)
      .sort((a, b) => b.weight - a.weight)
      .slice(0, 5)
      .map(
        ({ audit, savings }) =>
          `${audit.id}${audit.displayValue ? ` (${audit.displayValue})` : ''}: saves ` +
          Object.entries(savings)
            .filter(([, value]) => (value ?? 0) > 0)
            .map(([key, value]) => `${key} ${Math.round(value ?? 0)}${key === 'CLS' ? '' : ' ms'}`)
            .join(', '),
      );
    return {
      performance: score('performance'),
      accessibility: score('accessibility'),
      timingsMs: Object.fromEntries(
        Object.keys(timingAudits).map((id) => [id, numeric(id)]),
      ) as Record<string, number | null>,
      cumulativeLayoutShift: numeric('cumulative-layout-shift'),
      failedAccessibilityAudits: accessibilityRefs
        .filter((ref) => ref.weight > 0 && lhr.audits[ref.id]?.score === 0)
        .map((ref) => `${ref.id}: ${lhr.audits[ref.id]?.title ?? ''}`),
      opportunities,
      runWarnings: lhr.runWarnings,
    };
  } finally {
    clearTimeout(timer);
    chrome.kill();
    forget();
  }
}

function median(values: (number | null)[]): number | null {
  const numbers = values.filter((value): value is number => value !== null).sort((a, b) => a - b);
  if (numbers.length === 0) return null;
  const middle = Math.floor(numbers.length / 2);
  return numbers.length % 2
    ? (numbers[middle] ?? null)
    : ((numbers[middle - 1] ?? 0) + (numbers[middle] ?? 0)) / 2;
}

const scenario: Scenario = {
  name,
  async run(context) {
    const url = `${context.baseUrl}/`;
    const runCount = Math.max(1, Number(process.env.BENCH_LIGHTHOUSE_RUNS ?? 3) || 3);
    const runs: RunSummary[] = [];
    const failures: string[] = [];
    const maxFailures = 2;
    while (runs.length < runCount && failures.length <= maxFailures) {
      const started = Date.now();
      try {
        const summary = await runOnce(url);
        runs.push(summary);
        context.log(
          `run ${runs.length}/${runCount} in ${((Date.now() - started) / 1000).toFixed(0)} s: ` +
            `performance ${summary.performance}, accessibility ${summary.accessibility}`,
        );
        for (const audit of summary.failedAccessibilityAudits) {
          context.log(`  accessibility audit failed: ${audit}`);
        }
        for (const warning of summary.runWarnings) context.log(`  warning: ${warning}`);
        if (runs.length === 1) {
          for (const opportunity of summary.opportunities) {
            context.log(`  opportunity: ${opportunity}`);
          }
        }
      } catch (error) {
        failures.push(error instanceof Error ? (error.stack ?? error.message) : String(error));
        const message = error instanceof Error ? error.message : String(error);
        const retry = failures.length <= maxFailures ? '; trying again' : '; giving up';
        context.log(`Lighthouse failed: ${message}${retry}`);
      }
    }
    const firstLine = (text: string | undefined) => text?.split('\n')[0] ?? '';
    const note =
      runs.length === 0
        ? `Lighthouse failed: ${firstLine(failures.at(-1))}`
        : failures.length
          ? `median of ${runs.length} runs; ${failures.length} failed (${firstLine(failures[0])})`
          : undefined;
    const of = (pick: (run: RunSummary) => number | null) => median(runs.map(pick));
    const metrics: Metric[] = [
      metric(
        name,
        'performance (mobile)',
        of((run) => run.performance),
        'score',
        { atLeast: 95 },
        note,
      ),
      metric(
        name,
        'accessibility',
        of((run) => run.accessibility),
        'score',
        { atLeast: 100 },
        note,
      ),
    ];
    for (const [id, label] of Object.entries(timingAudits)) {
      const value = of((run) => run.timingsMs[id] ?? null);
      metrics.push(metric(name, label, value === null ? null : Math.round(value), 'ms'));
    }
    const cls = of((run) => run.cumulativeLayoutShift);
    metrics.push(metric(name, 'CLS', cls === null ? null : Number(cls.toFixed(3)), ''));
    return { metrics, details: { url, runs, failures } };
  },
};

export default scenario;
