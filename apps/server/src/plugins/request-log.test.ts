import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import Fastify, { LogController } from 'fastify';
import { z } from 'zod';
import { startJobs, type JobDefinition, type JobRunner } from '../jobs/job-runner.ts';
import { sendLoginMailJob } from '../jobs/send-login-mail.job.ts';
import { createLateBoundJobQueue } from '../lib/job-queue.ts';
import { createLogger, logJobRun } from '../lib/logger.ts';
import { createLoginMailService } from '../modules/auth/login-mail.service.ts';
import { requestChildLogger, requestLogPlugin } from './request-log.ts';
import {
  createTestContext,
  insertCustomer,
  nextIp,
  type TestContext,
} from '../../test/helpers/test-app.ts';

type LogLine = Record<string, unknown>;
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function collectingStream() {
  const lines: string[] = [];
  return {
    lines,
    stream: { write: (line: string) => void lines.push(line) },
    parsed: (): LogLine[] => lines.map((line) => JSON.parse(line) as LogLine),
  };
}

describe('the request log', () => {
  const log = collectingStream();
  let context: TestContext;
  beforeAll(async () => {
    context = await createTestContext(
      { logLevel: 'info' },
      (app) => {
        app.get('/api/test-probe/logs', async (request) => {
          // A service logs through the app's logger, not the request's: the mixin adds reqId.
          app.log.info('from a service');
          request.log.info('from the handler');
          return { ok: true };
        });
        app.post('/api/test-probe/logs', async () => {
          app.log.info('from a service after the body');
          return { ok: true };
        });
        app.post('/api/test-probe/queue', async () => {
          await context.jobQueue.send('log-probe', {});
          return { ok: true };
        });
      },
      () => ({ logStream: log.stream }),
    );
    const workerLog = createLogger('info', log.stream);
    context.jobQueue.register({
      name: 'log-probe',
      payload: z.object({}),
      handle: async () => workerLog.info('probe ran in memory'),
    });
  });
  afterAll(() => context.close());

  it('writes one JSON line per request, filed under the id the response header carries', async () => {
    log.lines.length = 0;
    const response = await context.app.inject({
      method: 'GET',
      url: '/api/test-probe/logs?token=SECRETTOKEN123',
      remoteAddress: '10.1.2.3',
    });
    expect(response.statusCode).toBe(200);
    const requestId = response.headers['x-request-id'];
    expect(requestId).toMatch(uuid);

    // Each write is exactly one line of JSON.
    for (const line of log.lines) expect(line.trimEnd().split('\n')).toHaveLength(1);
    const lines = log.parsed();
    const requestLines = lines.filter((line) => line.msg === 'request');
    expect(requestLines).toEqual([
      expect.objectContaining({
        reqId: requestId,
        method: 'GET',
        route: '/api/test-probe/logs',
        url: '/api/test-probe/logs?token=[redacted]',
        status: 200,
        responseTime: expect.any(Number),
        ip: '10.1.2.3',
      }),
    ]);
    // Fastify's own two lines per request are off.
    expect(lines.some((line) => /incoming request|request completed/.test(String(line.msg)))).toBe(
      false,
    );
    // Every line of the request carries its id, once.
    for (const message of ['from a service', 'from the handler']) {
      const line = lines.find((candidate) => candidate.msg === message);
      expect(line?.reqId, message).toBe(requestId);
    }
    for (const line of log.lines) expect(line.match(/"reqId"/g)?.length ?? 0).toBeLessThan(2);
    expect(log.lines.join('')).not.toContain('SECRETTOKEN123');
  });

  it('keeps the context past a body that arrives after the headers', async () => {
    // inject() feeds the body inside the request's context; a socket delivers a late body on
    // its own callbacks, outside it.
    const address = new URL(await context.app.listen({ host: '127.0.0.1', port: 0 }));
    try {
      const { status, requestId } = await new Promise<{ status?: number; requestId?: string }>(
        (resolve, reject) => {
          const request = http.request(
            {
              host: address.hostname,
              port: address.port,
              method: 'POST',
              path: '/api/test-probe/logs',
              headers: { 'content-type': 'application/json', 'content-length': 2 },
            },
            (response) => {
              response.resume();
              resolve({
                status: response.statusCode,
                requestId: String(response.headers['x-request-id']),
              });
            },
          );
          request.on('error', reject);
          request.flushHeaders();
          // Headers first; the body only once the server has surely started the request.
          setTimeout(() => request.end('{}'), 100);
        },
      );
      expect(status).toBe(200);
      const line = log
        .parsed()
        .find((candidate) => candidate.msg === 'from a service after the body');
      expect(line?.reqId).toBe(requestId);
    } finally {
      await new Promise((resolve) => context.app.server.close(resolve));
    }
  });

  it('leaves out probes that answered 2xx, so load-balancer checks do not bury the log', async () => {
    log.lines.length = 0;
    expect((await context.app.inject({ method: 'GET', url: '/api/healthz' })).statusCode).toBe(200);
    expect(log.parsed().filter((line) => line.msg === 'request')).toEqual([]);
    // Every other route still writes its line.
    await context.app.inject({ method: 'GET', url: '/api/test-probe/logs' });
    expect(log.parsed().filter((line) => line.msg === 'request')).toHaveLength(1);
  });

  it("carries the request id into the tests' in-memory job queue too", async () => {
    const response = await context.app.inject({ method: 'POST', url: '/api/test-probe/queue' });
    await context.jobQueue.runQueued();
    const line = log.parsed().find((candidate) => candidate.msg === 'probe ran in memory');
    expect(line).toEqual(
      expect.objectContaining({
        job: 'log-probe',
        requestId: response.headers['x-request-id'],
        jobId: expect.any(String),
      }),
    );
  });

  it('gives each request its own id and replaces one a client sent without a trusted proxy', async () => {
    const first = await context.app.inject({
      method: 'GET',
      url: '/api/healthz',
      headers: { 'x-request-id': 'chosen-by-the-client' },
    });
    const second = await context.app.inject({ method: 'GET', url: '/api/healthz' });
    expect(first.headers['x-request-id']).toMatch(uuid);
    expect(second.headers['x-request-id']).toMatch(uuid);
    expect(first.headers['x-request-id']).not.toBe(second.headers['x-request-id']);
    expect(log.lines.join('')).not.toContain('chosen-by-the-client');
  });
});

describe('the request id behind a trusted proxy', () => {
  const contexts: TestContext[] = [];
  afterAll(() => Promise.all(contexts.map((context) => context.close())));
  const appTrusting = async (trustProxy: number | string[]) => {
    const context = await createTestContext({ trustProxy });
    contexts.push(context);
    return context;
  };
  const idOf = async (context: TestContext, header: string, remoteAddress: string) =>
    (
      await context.app.inject({
        method: 'GET',
        url: '/api/healthz',
        headers: { 'x-request-id': header },
        remoteAddress,
      })
    ).headers['x-request-id'];

  it("keeps the proxy's well-formed id and replaces a malformed one", async () => {
    const context = await appTrusting(1);
    expect(await idOf(context, 'edge-7f3a.b_2', '10.0.0.1')).toBe('edge-7f3a.b_2');
    expect(await idOf(context, 'a'.repeat(64), '10.0.0.1')).toBe('a'.repeat(64));
    for (const malformed of ['a'.repeat(65), 'two words', 'x\n{"reqId":"forged"}', 'ü']) {
      expect(await idOf(context, malformed, '10.0.0.1')).toMatch(uuid);
    }
  });

  it('keeps it only from a listed proxy', async () => {
    const context = await appTrusting(['10.0.0.1', '192.168.0.0/16', 'loopback']);
    expect(await idOf(context, 'from-proxy', '10.0.0.1')).toBe('from-proxy');
    expect(await idOf(context, 'from-range', '192.168.4.5')).toBe('from-range');
    expect(await idOf(context, 'from-loopback', '127.0.0.1')).toBe('from-loopback');
    expect(await idOf(context, 'mapped', '::ffff:10.0.0.1')).toBe('mapped');
    expect(await idOf(context, 'from-client', '10.0.0.2')).toMatch(uuid);
  });
});

// The real pg-boss runner (PGlite), as server.ts wires it: the job a request queued logs with
// that request's id, and a service logging inside the job gets the job's context.
describe('a job queued by a request', () => {
  const log = collectingStream();
  const jobQueue = createLateBoundJobQueue();
  let context: TestContext;
  let runner: JobRunner;
  beforeAll(async () => {
    context = await createTestContext(
      { logLevel: 'info' },
      (app) =>
        app.post('/api/test-probe/queue', async () => {
          await jobQueue.send('log-probe', { note: 'queued' });
          return { ok: true };
        }),
      () => ({ logStream: log.stream, jobQueue }),
    );
    const workerLog = createLogger('info', log.stream);
    const probe: JobDefinition<{ note: string }> = {
      name: 'log-probe',
      payload: z.object({ note: z.string() }),
      async handle({ note }) {
        workerLog.info({ note }, 'probe ran');
        // A job it queues keeps the original request.
        if (note === 'queued') await jobQueue.send('log-probe', { note: 'follow-up' });
      },
    };
    runner = await startJobs(
      context.database,
      [
        probe,
        sendLoginMailJob({
          loginMail: createLoginMailService({
            db: context.database.db,
            clock: context.clock,
            mailer: context.mailer,
            publicUrl: context.config.publicUrl,
          }),
        }),
      ],
      {
        onError: (error) => {
          throw error;
        },
        onJobFinished: (run) => logJobRun(workerLog, run),
        pollingIntervalSeconds: 0.5,
      },
    );
    jobQueue.attach(runner.queue);
    await insertCustomer(context, 'farmer@example.com');
  }, 60_000);
  afterAll(async () => {
    await runner?.stop();
    await context?.close();
  });

  const jobRuns = (job: string) =>
    log.parsed().filter((line) => line.msg === 'job run' && line.job === job);

  it('logs the login e-mail run with the id of the request that asked for it', async () => {
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/auth/request-login',
      payload: { email: 'farmer@example.com' },
      remoteAddress: nextIp(),
    });
    expect(response.statusCode).toBe(200);
    const requestId = response.headers['x-request-id'];
    await vi.waitFor(() => expect(jobRuns('send-login-mail')).toHaveLength(1), {
      timeout: 20_000,
      interval: 100,
    });
    expect(jobRuns('send-login-mail')[0]).toEqual(
      expect.objectContaining({
        requestId,
        jobId: expect.any(String),
        attempt: 1,
        outcome: 'ok',
        durationMs: expect.any(Number),
      }),
    );
    expect(await context.mailer.list({ to: 'farmer@example.com' })).toHaveLength(1);
  }, 30_000);

  it("gives a service logging inside the job the job's context, down to the jobs it queues", async () => {
    const response = await context.app.inject({ method: 'POST', url: '/api/test-probe/queue' });
    const requestId = response.headers['x-request-id'];
    await vi.waitFor(() => expect(jobRuns('log-probe')).toHaveLength(2), {
      timeout: 20_000,
      interval: 100,
    });
    const probeLines = log.parsed().filter((line) => line.msg === 'probe ran');
    expect(probeLines.map(({ note, requestId: id, job }) => ({ note, id, job }))).toEqual([
      { note: 'queued', id: requestId, job: 'log-probe' },
      { note: 'follow-up', id: requestId, job: 'log-probe' },
    ]);
    const [first, second] = jobRuns('log-probe');
    expect(probeLines[0]!.jobId).toBe(first!.jobId);
    expect(probeLines[1]!.jobId).toBe(second!.jobId);
    expect(first!.jobId).not.toBe(second!.jobId);
  }, 30_000);
});

describe("the request's own logger", () => {
  async function appAt(level: string) {
    const log = collectingStream();
    const app = Fastify({
      loggerInstance: createLogger(level, log.stream),
      logController: new LogController({ disableRequestLogging: true }),
      childLoggerFactory: requestChildLogger,
    });
    await app.register(requestLogPlugin);
    app.get('/probe', async (request) => {
      request.log.info('an info line');
      request.log.warn({ detail: 1 }, 'a warning');
      request.log.child({ step: 'inner' }).error('an inner error');
      return { level: request.log.level };
    });
    return { app, log };
  }

  it('below its level writes nothing; at or above it, lines carry the request id once', async () => {
    const { app, log } = await appAt('warn');
    const response = await app.inject({ method: 'GET', url: '/probe' });
    await app.close();
    expect(response.json()).toEqual({ level: 'warn' });
    const requestId = response.headers['x-request-id'];
    const lines = log.parsed();
    expect(lines.map((line) => line.msg)).toEqual(['a warning', 'an inner error']);
    expect(lines[0]).toMatchObject({ reqId: requestId, detail: 1 });
    expect(lines[1]).toMatchObject({ reqId: requestId, step: 'inner' });
    for (const line of log.lines) expect(line.match(/"reqId"/g)).toHaveLength(1);
  });

  it('writes the info lines too when the level allows them', async () => {
    const { app, log } = await appAt('info');
    const response = await app.inject({ method: 'GET', url: '/probe' });
    await app.close();
    const requestId = response.headers['x-request-id'];
    const messages = log.parsed().map((line) => [line.msg, line.reqId]);
    expect(messages).toEqual([
      ['an info line', requestId],
      ['a warning', requestId],
      ['an inner error', requestId],
      ['request', requestId],
    ]);
  });
});
