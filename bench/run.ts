/**
 * The benchmark suite: `npm run bench`. Builds the SPA, starts the portal (fresh embedded
 * database with demo data) and a bare Fastify baseline on free ports, signs demo@example.com in
 * through the e-mailed link, runs every bench/scenarios/*.ts in file-name order, prints a
 * PASS/FAIL table and writes bench/results/latest.json.
 *
 * Missing a target is a measurement, not a failure: the exit code is non-zero only when the bench
 * itself broke (a build, a server, a sign-in or a scenario threw). Every process it starts is
 * stopped at the end, on failure, on Ctrl-C and on its own time limit.
 *
 * Environment: BENCH_CONNECTIONS (50), BENCH_DURATION (10 s), BENCH_WARMUP (3 s),
 * BENCH_LIGHTHOUSE_RUNS (3), BENCH_ONLY (comma-separated scenario names), BENCH_SKIP_BUILD=1,
 * BENCH_TIMEOUT_MINUTES (20), CHROME_PATH (/usr/bin/chromium).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { signIn } from './lib/auth.ts';
import { load, type LoadDefaults } from './lib/load.ts';
import { killAllSync } from './lib/processes.ts';
import { startHello, startPortal, type RunningServer } from './lib/servers.ts';
import type { BenchContext, Metric, Scenario } from './lib/types.ts';
import { buildWeb } from './lib/web.ts';

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const rootDir = path.resolve(benchDir, '..');
const resultsPath = path.join(benchDir, 'results', 'latest.json');

const numberFromEnv = (key: string, fallback: number) => {
  const value = Number(process.env[key]);
  return Number.isFinite(value) && value >= 0 && process.env[key] !== '' ? value : fallback;
};

const loadDefaults: LoadDefaults = {
  connections: numberFromEnv('BENCH_CONNECTIONS', 50) || 50,
  durationSeconds: numberFromEnv('BENCH_DURATION', 10) || 10,
  warmupSeconds: numberFromEnv('BENCH_WARMUP', 3),
};

const log = (message: string) => console.log(message);

async function loadScenarios(): Promise<Scenario[]> {
  const directory = path.join(benchDir, 'scenarios');
  const files = (await fs.readdir(directory))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts') && !file.includes('.test.'))
    .sort();
  const only = process.env.BENCH_ONLY?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const scenarios: Scenario[] = [];
  for (const file of files) {
    const module = (await import(pathToFileURL(path.join(directory, file)).href)) as {
      default?: Partial<Scenario>;
    };
    const scenario = module.default;
    if (typeof scenario?.name !== 'string' || typeof scenario.run !== 'function') {
      throw new Error(`bench/scenarios/${file} must export default { name, run(context) }`);
    }
    if (!only?.length || only.includes(scenario.name)) scenarios.push(scenario as Scenario);
  }
  return scenarios;
}

function git(args: string[]): string | null {
  const result = spawnSync('git', args, { cwd: rootDir, encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : null;
}

function formatValue(value: number | null, unit: string): string {
  if (value === null) return 'n/a';
  if (unit === 'bytes') return `${value} (${(value / 1024).toFixed(1)} KB)`;
  const text = Number.isInteger(value)
    ? String(value)
    : value.toFixed(value >= 100 ? 0 : value >= 10 ? 1 : 3);
  return unit && unit !== 'score' ? `${text} ${unit}` : text;
}

function formatTarget(target: string | null, unit: string): string {
  if (!target) return '';
  if (unit === 'bytes') {
    return target.replace(/\d+/g, (bytes) => `${bytes} (${Number(bytes) / 1024} KB)`);
  }
  return unit && unit !== 'score' && unit !== 'x' ? `${target} ${unit}` : target;
}

function printTable(metrics: Metric[]) {
  const header = ['Scenario', 'Metric', 'Value', 'Target', 'Result'];
  const rows = metrics.map((row) => [
    row.name,
    row.metric,
    formatValue(row.value, row.unit),
    formatTarget(row.target, row.unit),
    row.pass === null ? '' : row.pass ? 'PASS' : 'FAIL',
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  const rule = `|-${widths.map((width) => '-'.repeat(width)).join('-|-')}-|`;
  log('');
  log(line(header));
  log(rule);
  for (const row of rows) log(line(row));
  for (const row of metrics.filter((metricRow) => metricRow.note)) {
    log(`note (${row.name} / ${row.metric}): ${row.note}`);
  }
}

async function main(): Promise<number> {
  const startedAt = new Date();
  const metrics: Metric[] = [];
  const details: Record<string, unknown> = {};
  const errors: { scenario: string; message: string }[] = [];
  const servers: RunningServer[] = [];
  let setupError: string | undefined;
  let loadAverageBeforeScenarios: number | null = null;

  try {
    const scenarios = await loadScenarios();
    await buildWeb(rootDir, log);

    log('Starting the portal on a fresh temporary database...');
    const portal = await startPortal(rootDir);
    servers.push(portal);
    log(`Portal is up at ${portal.baseUrl}`);
    const hello = await startHello(rootDir);
    servers.push(hello);
    log(`Hello baseline is up at ${hello.baseUrl}`);

    const tokens = new Map<string, Promise<string>>();
    const signInOnce = (email: string) => {
      let token = tokens.get(email);
      if (!token) {
        token = signIn(portal.baseUrl, email);
        tokens.set(email, token);
        token.catch(() => tokens.delete(email));
      }
      return token;
    };
    const customerToken = await signInOnce('demo@example.com');
    log('Signed in as demo@example.com through the e-mailed link');

    loadAverageBeforeScenarios = os.loadavg()[0] ?? 0;
    if (loadAverageBeforeScenarios > os.cpus().length * 0.25) {
      log(
        `Warning: the 1-minute load average is ${loadAverageBeforeScenarios.toFixed(2)} on ` +
          `${os.cpus().length} cores; other work on this machine will skew the numbers.`,
      );
    }

    for (const scenario of scenarios) {
      const context: BenchContext = {
        baseUrl: portal.baseUrl,
        helloUrl: hello.baseUrl,
        customerToken,
        signIn: signInOnce,
        // Each load knows whose CPU to count: the portal's or the hello baseline's.
        load: (options) =>
          load(
            {
              serverProcessGroup: options.url.startsWith(hello.baseUrl)
                ? hello.process.child.pid
                : options.url.startsWith(portal.baseUrl)
                  ? portal.process.child.pid
                  : undefined,
              ...options,
            },
            loadDefaults,
          ),
        loadDefaults,
        rootDir,
        log: (message) => log(`  [${scenario.name}] ${message}`),
      };
      log(`\n== ${scenario.name}`);
      const started = Date.now();
      try {
        const output = await scenario.run(context);
        metrics.push(...output.metrics);
        if (output.details !== undefined) details[scenario.name] = output.details;
        log(`  (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      } catch (error) {
        const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
        errors.push({ scenario: scenario.name, message });
        console.error(`\n!! Scenario ${scenario.name} broke:\n${message}\n`);
      }
    }
  } catch (error) {
    setupError = error instanceof Error ? (error.stack ?? error.message) : String(error);
    console.error(`\n!! The bench could not run:\n${setupError}\n`);
  } finally {
    for (const server of servers.reverse()) {
      try {
        await server.stop();
      } catch (error) {
        console.error(`Stopping ${server.process.name} failed: ${String(error)}`);
      }
    }
  }

  const commit = git(['rev-parse', 'HEAD']);
  const report = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? null,
      memoryGiB: Number((os.totalmem() / 2 ** 30).toFixed(1)),
      platform: `${os.platform()} ${os.release()}`,
      node: process.version,
      loadAverageBeforeScenarios,
    },
    git: { commit, dirty: commit ? Boolean(git(['status', '--porcelain'])) : null },
    settings: { load: loadDefaults },
    metrics,
    details,
    errors: setupError ? [{ scenario: 'setup', message: setupError }, ...errors] : errors,
  };
  await fs.mkdir(path.dirname(resultsPath), { recursive: true });
  await fs.writeFile(resultsPath, `${JSON.stringify(report, null, 2)}\n`);

  printTable(metrics);
  const missed = metrics.filter((row) => row.pass === false).length;
  const checked = metrics.filter((row) => row.pass !== null).length;
  log(
    `\n${checked - missed} of ${checked} targets met. Results: ${path.relative(rootDir, resultsPath)}`,
  );
  if (setupError || errors.length) {
    console.error(
      `The bench broke: ${[setupError ? 'setup' : null, ...errors.map((error) => error.scenario)]
        .filter(Boolean)
        .join(', ')}`,
    );
    return 1;
  }
  return 0;
}

process.on('exit', killAllSync);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    console.error(`\nReceived ${signal}; stopping everything the bench started.`);
    killAllSync();
    process.exit(130);
  });
}
const timeoutMinutes = numberFromEnv('BENCH_TIMEOUT_MINUTES', 20) || 20;
setTimeout(() => {
  console.error(`\nThe bench ran longer than ${timeoutMinutes} minutes; stopping it.`);
  killAllSync();
  process.exit(1);
}, timeoutMinutes * 60_000).unref();

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    killAllSync();
    process.exit(1);
  },
);
