/**
 * The rolling-restart drill (docs/operations.md, "Drills"; decision 103): two ROLE=api processes
 * in production mode behind a real reverse proxy with the documented health check (GET
 * /api/readyz every 5 s, out after 2 failures, in after 2 successes, 3 s time-out), steady
 * traffic through the proxy, and each API restarted in turn (SIGTERM, wait for its exit, start it
 * again, wait until the proxy sends to it again). Counts every answer; a request that got no
 * answer or the proxy's own 502/503 is a dropped request. Exit 0 when none was dropped.
 *
 *   node --import tsx scripts/rolling-restart-drill.ts [--proxy haproxy|caddy] [--grace SECONDS]
 *
 * --proxy haproxy (default): HAProxy (Debian's `haproxy`), which implements the documented policy
 *   exactly (`inter 5s fall 2 rise 2`, `timeout check 3s`).
 * --proxy caddy: Caddy with the Caddyfile of docs/production.md; `health_fails 2`/`health_passes 2` are added
 *   when the installed Caddy knows them (2.7 and later; Debian 12's 2.6 takes a server out after
 *   one failed check).
 * --grace: SHUTDOWN_GRACE_SECONDS for the APIs; without it they use the production default.
 * DATABASE_URL: the PostgreSQL database to use; without it a throwaway server is started (initdb).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  freePort,
  sleep,
  startServerProcess,
  stopServerProcess,
  waitFor,
  type ServerProcess,
} from '../apps/server/test/helpers/server-processes.ts';
import { startThrowawayPostgres } from '../apps/server/test/helpers/throwaway-postgres.ts';

const { values: options } = parseArgs({
  options: {
    proxy: { type: 'string', default: 'haproxy' },
    grace: { type: 'string' },
    concurrency: { type: 'string', default: '8' },
  },
});
const proxyKind = options.proxy === 'caddy' ? 'caddy' : 'haproxy';
const checkIntervalSeconds = 5;
const checksToLeave = 2;
const checksToReturn = 2;

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'farmcam-drill-'));
const cleanups: (() => Promise<void>)[] = [];

function log(message: string) {
  process.stdout.write(`[drill ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** Whether the installed Caddy knows a Caddyfile subdirective (health_fails came in 2.7). */
function caddyKnows(subdirective: string): boolean {
  const file = path.join(work, 'probe.Caddyfile');
  fs.writeFileSync(
    file,
    `:1 {\n\treverse_proxy 127.0.0.1:2 {\n\t\thealth_uri /api/readyz\n\t\t${subdirective} 2\n\t}\n}\n`,
  );
  try {
    execFileSync('caddy', ['validate', '--config', file, '--adapter', 'caddyfile'], {
      stdio: 'pipe',
    });
    return true;
  } catch {
    return false;
  }
}

async function startProxy(port: number, apiPorts: number[]): Promise<ChildProcess> {
  let child: ChildProcess;
  if (proxyKind === 'haproxy') {
    const config = path.join(work, 'haproxy.cfg');
    fs.writeFileSync(
      config,
      [
        'defaults',
        '  mode http',
        '  timeout connect 3s',
        '  timeout client 30s',
        '  timeout server 30s',
        // No retry on another server: a request the draining process refused counts as dropped.
        '  retries 0',
        'frontend portal',
        `  bind 127.0.0.1:${port}`,
        '  default_backend apis',
        'backend apis',
        '  option httpchk GET /api/readyz',
        '  http-check expect status 200',
        '  timeout check 3s',
        `  default-server inter ${checkIntervalSeconds}s fall ${checksToLeave} rise ${checksToReturn}`,
        ...apiPorts.map((apiPort, index) => `  server api${index + 1} 127.0.0.1:${apiPort} check`),
        '',
      ].join('\n'),
    );
    child = spawn('haproxy', ['-f', config, '-db'], { stdio: ['ignore', 'pipe', 'pipe'] });
  } else {
    const counts = caddyKnows('health_fails')
      ? [`\t\thealth_fails ${checksToLeave}`, `\t\thealth_passes ${checksToReturn}`]
      : [];
    if (counts.length === 0) log('this Caddy has no health_fails: out after one failed check');
    const config = path.join(work, 'Caddyfile');
    fs.writeFileSync(
      config,
      [
        '{',
        '\tadmin off',
        '\tauto_https off',
        '}',
        `:${port} {`,
        `\treverse_proxy ${apiPorts.map((apiPort) => `127.0.0.1:${apiPort}`).join(' ')} {`,
        '\t\thealth_uri /api/readyz',
        `\t\thealth_interval ${checkIntervalSeconds}s`,
        '\t\thealth_timeout 3s',
        ...counts,
        '\t}',
        '}',
        '',
      ].join('\n'),
    );
    child = spawn('caddy', ['run', '--config', config, '--adapter', 'caddyfile'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, XDG_DATA_HOME: work, XDG_CONFIG_HOME: work },
    });
  }
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  cleanups.push(async () => {
    child.kill('SIGTERM');
  });
  await waitFor(
    `${proxyKind} answering`,
    async () => {
      if (child.exitCode !== null) throw new Error(`${proxyKind} exited:\n${output}`);
      return (await fetch(`http://127.0.0.1:${port}/api/healthz`)).ok;
    },
    { timeoutMs: 30_000 },
  );
  return child;
}

interface Tally {
  answered: Map<number, number>;
  dropped: { at: string; what: string }[];
}

/** Steady traffic through the proxy until stopped: GET /api/auth/user-data without a session. */
function startTraffic(url: string, concurrency: number) {
  const tally: Tally = { answered: new Map(), dropped: [] };
  let isRunning = true;
  const loops = Array.from({ length: concurrency }, async () => {
    while (isRunning) {
      try {
        const response = await fetch(`${url}/api/auth/user-data`, {
          signal: AbortSignal.timeout(10_000),
        });
        await response.arrayBuffer();
        tally.answered.set(response.status, (tally.answered.get(response.status) ?? 0) + 1);
        // The proxy's own answers when it had no server for the request.
        if (response.status === 502 || response.status === 503 || response.status === 504) {
          tally.dropped.push({ at: new Date().toISOString(), what: `HTTP ${response.status}` });
        }
      } catch (error) {
        tally.dropped.push({ at: new Date().toISOString(), what: String(error) });
      }
      await sleep(5);
    }
  });
  return {
    tally,
    async stop() {
      isRunning = false;
      await Promise.all(loops);
    },
  };
}

async function main() {
  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    const database = await startThrowawayPostgres();
    cleanups.push(() => database.destroy());
    databaseUrl = database.url;
    log(`throwaway PostgreSQL on port ${database.port}`);
  }
  const proxyPort = await freePort();
  const apiPorts = [await freePort(), await freePort()];
  const environment: NodeJS.ProcessEnv = {
    NODE_ENV: 'production',
    ROLE: 'api',
    PUBLIC_URL: `http://127.0.0.1:${proxyPort}`,
    MAIL: 'smtp',
    // Never used: nobody signs in during the drill.
    SMTP_URL: 'smtp://127.0.0.1:2525',
    DEMO_DATA: 'false',
    LOG_LEVEL: 'warn',
    TRUST_PROXY: '1',
    ...(options.grace !== undefined ? { SHUTDOWN_GRACE_SECONDS: options.grace } : {}),
  };
  const start = (index: number) =>
    startServerProcess(databaseUrl, {
      name: `api${index + 1}`,
      port: apiPorts[index],
      environment,
    });
  const apis: ServerProcess[] = [];
  for (let index = 0; index < 2; index += 1) {
    apis[index] = await start(index);
    await waitFor(
      `api${index + 1} ready`,
      async () => (await fetch(`${apis[index]!.baseUrl}/api/readyz`)).status === 200,
      { timeoutMs: 90_000, watch: [apis[index]!] },
    );
  }
  cleanups.push(async () => {
    await Promise.all(apis.map((api) => stopServerProcess(api, 60_000)));
  });
  await startProxy(proxyPort, apiPorts);
  // Both servers in: the proxy needs its passes after start.
  await sleep((checksToReturn + 1) * checkIntervalSeconds * 1000);
  log(
    `proxy ${proxyKind} on ${proxyPort}; APIs on ${apiPorts.join(', ')}; grace ${options.grace ?? 'default (production)'}`,
  );

  const traffic = startTraffic(`http://127.0.0.1:${proxyPort}`, Number(options.concurrency));
  const started = performance.now();
  await sleep(5_000);
  for (let index = 0; index < 2; index += 1) {
    const api = apis[index]!;
    log(`SIGTERM to api${index + 1}`);
    const stoppingAt = performance.now();
    await stopServerProcess(api, 120_000);
    log(`api${index + 1} exited after ${((performance.now() - stoppingAt) / 1000).toFixed(1)} s`);
    apis[index] = await start(index);
    await waitFor(
      `api${index + 1} ready again`,
      async () => (await fetch(`${apis[index]!.baseUrl}/api/readyz`)).status === 200,
      { timeoutMs: 90_000, watch: [apis[index]!] },
    );
    // The proxy puts it back after its passes; only then is the next one restarted.
    await sleep((checksToReturn + 1) * checkIntervalSeconds * 1000);
    log(`api${index + 1} back in`);
  }
  await sleep(5_000);
  await traffic.stop();
  const seconds = (performance.now() - started) / 1000;
  const total = [...traffic.tally.answered.values()].reduce((sum, count) => sum + count, 0);
  log(
    `${total} answers in ${seconds.toFixed(0)} s (${(total / seconds).toFixed(0)}/s): ${JSON.stringify(Object.fromEntries(traffic.tally.answered))}`,
  );
  log(`dropped: ${traffic.tally.dropped.length}`);
  for (const drop of traffic.tally.dropped.slice(0, 5)) log(`  ${drop.at} ${drop.what}`);
  process.exitCode = traffic.tally.dropped.length === 0 ? 0 : 1;
}

try {
  await main();
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  fs.rmSync(work, { recursive: true, force: true });
}
