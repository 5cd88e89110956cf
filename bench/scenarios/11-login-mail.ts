/**
 * Login e-mail at morning-rush speed (issue 23 item 5, docs/decisions/104): on a fresh PostgreSQL
 * database (bench_mail_<pid>), a portal with ROLE=api and one with ROLE=worker, MAIL=smtp to a
 * real SMTP server in the bench's process (the `smtp-server` package) that timestamps each
 * message as it arrives. BENCH_MAIL_CUSTOMERS (600) customers are inserted; every request asks
 * for a different one's link, from its own client address (TRUST_PROXY=1 and X-Forwarded-For, as
 * many farms behind one proxy would), so no rate limit is met.
 *
 * Three measurements, after one warm-up e-mail:
 * - one request at a time, a random 0.5-1.5 s apart (BENCH_MAIL_SINGLES, 20): request to arrival;
 * - a rush at BENCH_MAIL_RATE (20) requests a second for BENCH_MAIL_RUSH_SECONDS (10): each
 *   e-mail's request-to-arrival time;
 * - a burst of BENCH_MAIL_BURST (300) requests at once (20 in flight): e-mails a second from the
 *   first request to the last arrival.
 * Every e-mail must arrive exactly once: the sink counts each address and Message-ID, and a
 * missing or doubled one is reported (and misses the target).
 */
import pg from 'pg';
import { startSmtpSink, type ReceivedMail } from '../../apps/server/test/helpers/smtp-sink.ts';
import { postgresServerUrl, withBenchDatabase } from '../lib/postgres.ts';
import { sleep } from '../lib/processes.ts';
import { startPortal, type RunningServer } from '../lib/servers.ts';
import { metric, type Metric, type Scenario } from '../lib/types.ts';

const name = 'login-mail';
const numberFromEnv = (key: string, fallback: number) => {
  const value = Number(process.env[key]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
};
const singles = numberFromEnv('BENCH_MAIL_SINGLES', 20);
const rushRate = numberFromEnv('BENCH_MAIL_RATE', 20);
const rushSeconds = numberFromEnv('BENCH_MAIL_RUSH_SECONDS', 10);
const burst = numberFromEnv('BENCH_MAIL_BURST', 300);
const customers = Math.max(
  numberFromEnv('BENCH_MAIL_CUSTOMERS', 600),
  1 + singles + rushRate * rushSeconds + burst,
);

const percentile = (values: number[], share: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? 0;
};

interface Measured {
  singles: number[];
  rush: number[];
  burst: { count: number; seconds: number; firstMs: number; latencies: number[] };
  sent: number;
  received: number;
  missing: number;
  doubled: number;
}

const scenario: Scenario = {
  name,
  async run(context) {
    const arrivals = new Map<string, ReceivedMail[]>();
    const sink = await startSmtpSink({
      onMessage: (mail) => {
        for (const to of mail.to) arrivals.set(to, [...(arrivals.get(to) ?? []), mail]);
      },
    });
    const arrivalOf = async (email: string, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!arrivals.has(email)) {
        if (Date.now() > deadline) throw new Error(`No login e-mail for ${email} within 30 s`);
        await sleep(5);
      }
      return arrivals.get(email)![0]!.receivedAt;
    };

    let measured: Measured | null;
    try {
      measured = await withBenchDatabase('mail', context.log, async (url) => {
        const portals: RunningServer[] = [];
        try {
          const environment = {
            DEMO_DATA: 'false',
            MAIL: 'smtp',
            SMTP_URL: sink.url,
            TRUST_PROXY: '1',
          };
          portals.push(
            await startPortal(context.rootDir, {
              databaseUrl: url,
              env: { ...environment, ROLE: 'api' },
            }),
          );
          portals.push(
            await startPortal(context.rootDir, {
              databaseUrl: url,
              env: { ...environment, ROLE: 'worker' },
            }),
          );
          const [api] = portals as [RunningServer];
          const database = new pg.Client({ connectionString: url });
          await database.connect();
          await database.query(
            `insert into customers (email)
             select 'rush-' || n || '@bench.example' from generate_series(1, $1) as n`,
            [customers],
          );
          await database.end();
          context.log(`${customers} customers; api ${api.baseUrl}, SMTP sink on ${sink.port}`);

          let next = 1;
          const sent: string[] = [];
          const ask = async () => {
            const index = next++;
            const email = `rush-${index}@bench.example`;
            sent.push(email);
            const requestedAt = Date.now();
            const response = await fetch(`${api.baseUrl}/api/auth/request-login`, {
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                'x-forwarded-for': `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`,
              },
              body: JSON.stringify({ email }),
            });
            if (response.status !== 200) {
              throw new Error(
                `request-login answered ${response.status}: ${await response.text()}`,
              );
            }
            return { email, requestedAt };
          };
          const latencyOf = async (request: Promise<{ email: string; requestedAt: number }>) => {
            const { email, requestedAt } = await request;
            return (await arrivalOf(email)) - requestedAt;
          };

          // Warm-up: connections, the SMTP pool, the first queries.
          await latencyOf(ask());

          const singleLatencies: number[] = [];
          for (let index = 0; index < singles; index += 1) {
            await sleep(500 + Math.random() * 1000);
            singleLatencies.push(await latencyOf(ask()));
          }
          context.log(
            `one at a time: p50 ${percentile(singleLatencies, 0.5)} ms, p95 ${percentile(singleLatencies, 0.95)} ms`,
          );

          await sleep(1500);
          const rushLatencies: Promise<number>[] = [];
          const rushStart = Date.now();
          for (let index = 0; index < rushRate * rushSeconds; index += 1) {
            const due = rushStart + (index * 1000) / rushRate;
            if (due > Date.now()) await sleep(due - Date.now());
            rushLatencies.push(latencyOf(ask()));
          }
          const rush = await Promise.all(rushLatencies);
          context.log(
            `${rushRate}/s for ${rushSeconds} s: p50 ${percentile(rush, 0.5)} ms, p95 ${percentile(rush, 0.95)} ms, max ${Math.max(...rush)} ms`,
          );

          await sleep(1500);
          const burstStart = Date.now();
          // 20 requests in flight at a time, as fast as the API answers.
          const burstRequests: { email: string; requestedAt: number }[] = [];
          let asked = 0;
          await Promise.all(
            Array.from({ length: 20 }, async () => {
              while (asked < burst) {
                asked += 1;
                burstRequests.push(await ask());
              }
            }),
          );
          const burstArrivals = await Promise.all(
            burstRequests.map(({ email }) => arrivalOf(email, 120_000)),
          );
          const lastArrival = Math.max(...burstArrivals);
          const burstSeconds = (lastArrival - burstStart) / 1000;
          const measuredBurst = {
            count: burst,
            seconds: burstSeconds,
            firstMs: Math.min(...burstArrivals) - burstStart,
            latencies: burstRequests.map(
              ({ requestedAt }, index) => burstArrivals[index]! - requestedAt,
            ),
          };
          context.log(
            `burst of ${burst}: ${(burst / burstSeconds).toFixed(1)} e-mails/s, first after ${measuredBurst.firstMs} ms`,
          );

          // Anything late or doubled would show within a few more seconds.
          await sleep(3000);
          const missing = sent.filter((email) => !arrivals.has(email)).length;
          const doubled = sent.filter((email) => (arrivals.get(email)?.length ?? 0) > 1).length;
          const messageIds = new Set(sink.received.map((mail) => mail.messageId));
          return {
            singles: singleLatencies,
            rush,
            burst: measuredBurst,
            sent: sent.length,
            received: sink.received.length,
            missing,
            doubled: doubled + (sink.received.length - messageIds.size),
          };
        } finally {
          for (const portal of portals.reverse()) await portal.stop();
        }
      });
    } finally {
      await sink.stop();
    }

    if (!measured) {
      return {
        metrics: [
          {
            ...metric(name, 'login e-mails a second (burst)', null, 'mails/s'),
            note: `no PostgreSQL server at ${postgresServerUrl} (BENCH_POSTGRES_URL)`,
          },
        ],
      };
    }
    const { burst: measuredBurst } = measured;
    const metrics: Metric[] = [
      metric(
        name,
        `login e-mails a second, burst of ${measuredBurst.count} (first request to last arrival)`,
        Number((measuredBurst.count / measuredBurst.seconds).toFixed(1)),
        'mails/s',
        { atLeast: 20 },
      ),
      metric(
        name,
        'request to e-mail, one at a time: p50',
        percentile(measured.singles, 0.5),
        'ms',
        { atMost: 1000 },
      ),
      metric(
        name,
        'request to e-mail, one at a time: p95',
        percentile(measured.singles, 0.95),
        'ms',
        { atMost: 2000 },
      ),
      metric(
        name,
        `request to e-mail at ${rushRate} requests/s: p50`,
        percentile(measured.rush, 0.5),
        'ms',
        { atMost: 1000 },
      ),
      metric(
        name,
        `request to e-mail at ${rushRate} requests/s: p95`,
        percentile(measured.rush, 0.95),
        'ms',
        { atMost: 2000 },
      ),
      metric(name, 'burst: first e-mail after the first request', measuredBurst.firstMs, 'ms', {
        atMost: 1000,
      }),
      metric(
        name,
        `burst: request to e-mail p95 (${measuredBurst.count} at once)`,
        percentile(measuredBurst.latencies, 0.95),
        'ms',
      ),
      metric(name, 'e-mails missing or sent twice', measured.missing + measured.doubled, 'mails', {
        atMost: 0,
      }),
    ];
    return {
      metrics,
      details: {
        requests: measured.sent,
        received: measured.received,
        missing: measured.missing,
        doubled: measured.doubled,
        singles: measured.singles,
        rush: { rate: rushRate, seconds: rushSeconds, p99: percentile(measured.rush, 0.99) },
        burst: {
          count: measuredBurst.count,
          seconds: measuredBurst.seconds,
          firstMs: measuredBurst.firstMs,
          p50: percentile(measuredBurst.latencies, 0.5),
          p95: percentile(measuredBurst.latencies, 0.95),
        },
      },
    };
  },
};

export default scenario;
