/**
 * API throughput with 2 API processes against 1, on PostgreSQL (issue 14): a fresh database
 * bench_api_<pid> at BENCH_POSTGRES_URL (dropped after), one portal with ROLE=all (demo data,
 * the jobs that send the sign-in e-mail) and a second with ROLE=api on the same database.
 * demo@example.com signs in on the first; the session is good on both (they share the
 * database). The same total of connections (BENCH_CONNECTIONS) on the authenticated
 * GET /api/auth/user-data goes either all to the first process, or half to each (two autocannon
 * instances at once, one per port: what a proxy in front of them would do). Rounds alternate
 * (1, 2, 2, 1, ...) as in the throughput scenario, and the ratio is the median of the rounds'.
 *
 * The CPU time of each process group (server, database, and the bench's own autocannon) over
 * the measured runs is recorded too: on a 2-core machine the load generator shares the cores
 * with the servers, and that split is what explains the ratio.
 * BENCH_API_ROUNDS (3): rounds of each.
 */
import fs from 'node:fs';
import os from 'node:os';
import { signIn } from '../lib/auth.ts';
import { clockTicks, groupCpuSeconds } from '../lib/cpu.ts';
import { load, type LoadResult } from '../lib/load.ts';
import { postgresServerUrl, withBenchDatabase } from '../lib/postgres.ts';
import { startPortal, type RunningServer } from '../lib/servers.ts';
import { metric, type BenchContext, type Metric, type Scenario } from '../lib/types.ts';

const name = 'api-processes';
const rounds = Number(process.env.BENCH_API_ROUNDS) || 3;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return sorted.length % 2
    ? (sorted[Math.floor(middle)] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

/** CPU seconds of this process (the bench: autocannon) and of the PostgreSQL server's processes. */
function otherCpuSeconds() {
  const own = process.cpuUsage();
  let postgresTicks = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      postgresTicks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // Gone.
    }
  }
  return { bench: (own.user + own.system) / 1e6, postgres: postgresTicks / clockTicks };
}

interface Round {
  processes: 1 | 2;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** Server CPU (both portals' process groups) per answered request, in microseconds. */
  serverCpuMicroseconds: number | null;
  /** CPU seconds per process group over the run: first portal, second portal, bench, PostgreSQL. */
  cpuSeconds: { first: number | null; second: number | null; bench: number; postgres: number };
  perProcess: LoadResult[];
}

async function measureRound(
  context: BenchContext,
  portals: RunningServer[],
  token: string,
  processes: 1 | 2,
  warmupSeconds: number,
): Promise<Round> {
  const durationSeconds = Math.max(3, Math.round(context.loadDefaults.durationSeconds / 2));
  const connections = context.loadDefaults.connections;
  const targets = portals.slice(0, processes);
  const cpu = () => ({
    first: groupCpuSeconds(portals[0]?.process.child.pid),
    second: groupCpuSeconds(portals[1]?.process.child.pid),
    ...otherCpuSeconds(),
  });
  const loadEach = (warmup: number, duration: number) =>
    Promise.all(
      targets.map((portal, index) =>
        load(
          {
            title: `user-data on API process ${index + 1} of ${processes}`,
            url: `${portal.baseUrl}/api/auth/user-data`,
            headers: { authorization: `Bearer ${token}` },
            // The total stays the same: split between the processes.
            connections: Math.max(1, Math.round(connections / processes)),
            durationSeconds: duration,
            warmupSeconds: 0,
          },
          context.loadDefaults,
        ),
      ),
    );
  if (warmupSeconds > 0) await loadEach(0, warmupSeconds);
  const before = cpu();
  const perProcess = await loadEach(0, durationSeconds);
  const after = cpu();
  const difference = (key: keyof typeof before) => {
    const start = before[key];
    const end = after[key];
    // PostgreSQL backends that end during the run take their time with them: never below 0.
    return start === null || end === null ? null : Math.max(0, Number((end - start).toFixed(2)));
  };
  const answered = perProcess.reduce((sum, result) => sum + result.responses2xx, 0);
  const first = difference('first');
  const second = difference('second');
  return {
    processes,
    requestsPerSecond: perProcess.reduce((sum, result) => sum + result.requestsPerSecond, 0),
    serverCpuMicroseconds:
      first === null || second === null || answered === 0
        ? null
        : Math.round(((first + second) * 1e6) / answered),
    p50: Math.max(...perProcess.map((result) => result.latencyMs.p50)),
    p99: Math.max(...perProcess.map((result) => result.latencyMs.p99)),
    cpuSeconds: {
      first,
      second,
      bench: difference('bench') ?? 0,
      postgres: difference('postgres') ?? 0,
    },
    perProcess,
  };
}

const scenario: Scenario = {
  name,
  async run(context) {
    const measured = await withBenchDatabase('api', context.log, async (url) => {
      const portals: RunningServer[] = [];
      try {
        portals.push(
          await startPortal(context.rootDir, {
            databaseUrl: url,
            env: { ROLE: 'all', DEMO_DATA: 'true' },
          }),
        );
        // The second starts once the first has migrated and seeded the database.
        portals.push(
          await startPortal(context.rootDir, {
            databaseUrl: url,
            env: { ROLE: 'api', DEMO_DATA: 'false' },
          }),
        );
        context.log(
          `two portals on ${url.replace(/\/\/[^@]*@/, '//')}: ${portals[0]!.baseUrl}, ${portals[1]!.baseUrl}`,
        );
        const token = await signIn(portals[0]!.baseUrl, 'demo@example.com');
        const results: Round[] = [];
        const order: (1 | 2)[] = [];
        for (let round = 0; round < rounds; round += 1) {
          order.push(...((round % 2 === 0 ? [1, 2] : [2, 1]) as (1 | 2)[]));
        }
        for (const [index, processes] of order.entries()) {
          const warmup = index < 2 ? context.loadDefaults.warmupSeconds : 0;
          const round = await measureRound(context, portals, token, processes, warmup);
          context.log(
            `${processes} API process${processes === 1 ? '' : 'es'}: ` +
              `${round.requestsPerSecond.toFixed(0)} req/s, p50 ${round.p50} ms, p99 ${round.p99} ms, ` +
              `server CPU ${round.serverCpuMicroseconds} µs/request; ` +
              `CPU s ${JSON.stringify(round.cpuSeconds)}`,
          );
          results.push(round);
        }
        return results;
      } finally {
        for (const portal of portals.reverse()) await portal.stop();
      }
    });
    if (!measured) {
      return {
        metrics: [
          {
            ...metric(name, 'user-data req/s, 2 API processes ÷ 1', null, 'x'),
            note: `no PostgreSQL server at ${postgresServerUrl} (BENCH_POSTGRES_URL)`,
          },
        ],
      };
    }
    const one = measured.filter((round) => round.processes === 1);
    const two = measured.filter((round) => round.processes === 2);
    const ratios = one.map(
      (round, index) => (two[index]?.requestsPerSecond ?? 0) / round.requestsPerSecond,
    );
    const metrics: Metric[] = [
      metric(
        name,
        '1 API process: user-data req/s (median)',
        Math.round(median(one.map((round) => round.requestsPerSecond))),
        'req/s',
      ),
      metric(
        name,
        '2 API processes: user-data req/s (median)',
        Math.round(median(two.map((round) => round.requestsPerSecond))),
        'req/s',
      ),
      metric(
        name,
        'user-data req/s, 2 API processes ÷ 1 (median of rounds)',
        Number(median(ratios).toFixed(2)),
        'x',
      ),
      ...([1, 2] as const).map((processes) =>
        metric(
          name,
          `${processes} API process${processes === 1 ? '' : 'es'}: server CPU per request (median)`,
          median(
            measured
              .filter((round) => round.processes === processes)
              .map((round) => round.serverCpuMicroseconds ?? 0),
          ),
          'µs',
        ),
      ),
    ];
    return {
      metrics,
      details: {
        cores: os.cpus().length,
        rounds: measured.map(({ perProcess, ...round }) => ({
          ...round,
          perProcess: perProcess.map((result) => ({
            requestsPerSecond: result.requestsPerSecond,
            connections: result.connections,
            latencyMs: result.latencyMs,
          })),
        })),
        ratios,
      },
    };
  },
};

export default scenario;
