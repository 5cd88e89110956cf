/**
 * API throughput against a bare-Fastify baseline: the same autocannon load (50 connections by
 * default) on the hello world's GET / and on the portal's authenticated GET /api/auth/user-data.
 * The ratio tells how much of Fastify's raw speed survives session lookup, validation and the
 * plugins on the cheapest authenticated route.
 *
 * Beside each, the server's CPU per answer (its process group's user + system time over the
 * measured run): requests per second swing with other work on a shared machine, CPU per request
 * much less, so that ratio is the one to judge a change by (issue 26 item 9).
 *
 * The two alternate in rounds (hello, user-data, user-data, hello, ...) after one warm-up each,
 * and the ratio is the median of the rounds' ratios: on a shared machine the load drifts over
 * a run, and measuring one after the other once would charge the drift to whichever came second.
 */
import { cpuRatio, type LoadResult } from '../lib/load.ts';
import { metric, type Scenario } from '../lib/types.ts';

const name = 'api-throughput';
/**
 * Five rounds, not three: on the shared 2-core machine one round's ratio swings by ±0.15 with
 * other work, and a median of five is steadier than one of three for 20 s more (decision 090).
 */
const rounds = 5;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

const scenario: Scenario = {
  name,
  async run(context) {
    const durationSeconds = Math.max(2, Math.round(context.loadDefaults.durationSeconds / 2));
    const helloLoad = (warmupSeconds: number) =>
      context.load({
        title: 'hello GET /',
        url: `${context.helloUrl}/`,
        durationSeconds,
        warmupSeconds,
      });
    const userDataLoad = (warmupSeconds: number) =>
      context.load({
        title: 'portal GET /api/auth/user-data',
        url: `${context.baseUrl}/api/auth/user-data`,
        headers: { authorization: `Bearer ${context.customerToken}` },
        durationSeconds,
        warmupSeconds,
      });

    const hello: LoadResult[] = [];
    const userData: LoadResult[] = [];
    const ratios: number[] = [];
    const cpuRatios: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const warmupSeconds = round === 0 ? context.loadDefaults.warmupSeconds : 0;
      // Alternate which goes first, so neither is always the one measured after the other.
      let helloRound: LoadResult;
      let userDataRound: LoadResult;
      if (round % 2 === 0) {
        helloRound = await helloLoad(warmupSeconds);
        userDataRound = await userDataLoad(warmupSeconds);
      } else {
        userDataRound = await userDataLoad(warmupSeconds);
        helloRound = await helloLoad(warmupSeconds);
      }
      hello.push(helloRound);
      userData.push(userDataRound);
      ratios.push(userDataRound.requestsPerSecond / helloRound.requestsPerSecond);
      const cpu = cpuRatio(userDataRound, helloRound);
      if (cpu !== null) cpuRatios.push(cpu);
      context.log(
        `round ${round + 1}: hello ${helloRound.requestsPerSecond.toFixed(0)} req/s, ` +
          `user-data ${userDataRound.requestsPerSecond.toFixed(0)} req/s ` +
          `(ratio ${ratios.at(-1)?.toFixed(3)}, user-data p99 ${userDataRound.latencyMs.p99} ms); ` +
          `server CPU per request: hello ${helloRound.serverCpuMicroseconds} µs, user-data ` +
          `${userDataRound.serverCpuMicroseconds} µs (${cpu}x)`,
      );
    }

    const connections = `${userData[0]?.connections ?? 0} connections`;
    const cpuPerRequest = (results: LoadResult[]) => {
      const values = results
        .map((result) => result.serverCpuMicroseconds)
        .filter((value): value is number => value !== null);
      return values.length > 0 ? median(values) : null;
    };
    const latency = (results: LoadResult[], key: 'p50' | 'p99') =>
      median(results.map((result) => result.latencyMs[key]));
    return {
      metrics: [
        metric(
          name,
          'hello GET / throughput',
          Math.round(mean(hello.map((result) => result.requestsPerSecond))),
          'req/s',
        ),
        metric(
          name,
          'user-data throughput',
          Math.round(mean(userData.map((result) => result.requestsPerSecond))),
          'req/s',
        ),
        metric(
          name,
          `user-data / hello ratio (median of ${rounds} rounds)`,
          Number(median(ratios).toFixed(3)),
          'x',
          { atLeast: 0.5 },
        ),
        metric(name, 'hello: server CPU per request (median)', cpuPerRequest(hello), 'µs'),
        metric(name, 'user-data: server CPU per request (median)', cpuPerRequest(userData), 'µs'),
        metric(
          name,
          `user-data / hello: server CPU per request (median of ${rounds} rounds)`,
          cpuRatios.length > 0 ? median(cpuRatios) : null,
          'x',
        ),
        metric(name, `user-data p99 latency (${connections})`, latency(userData, 'p99'), 'ms'),
        metric(name, `user-data p50 latency (${connections})`, latency(userData, 'p50'), 'ms'),
        metric(name, `hello p99 latency (${connections})`, latency(hello, 'p99'), 'ms'),
      ],
      details: { durationSeconds, ratios, hello, userData },
    };
  },
};

export default scenario;
