import { describe, expect, it } from 'vitest';
import { createLogger, logJobRun, prettyLogStream } from './logger.ts';
import { runInLogContext } from './request-context.ts';

/** What a terminal would show: the pretty stream's output, colours off. */
function terminal() {
  const written: string[] = [];
  return {
    stream: prettyLogStream(
      { write: (text: string) => void written.push(text) },
      { colorize: false },
    ),
    lines: () => written.join('').split('\n').filter(Boolean),
  };
}

function jsonSink() {
  const lines: string[] = [];
  return {
    stream: { write: (line: string) => void lines.push(line) },
    parsed: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

const time = /^\[\d\d:\d\d:\d\d\] /;

describe('readable log lines (LOG_FORMAT=pretty, docs/decisions/106)', () => {
  it('writes one line per event: time, level, message, then the other fields', () => {
    const screen = terminal();
    const logger = createLogger('info', screen.stream);
    logger.info('Seeded demo data');
    logger.warn({ camera: 'Top gate' }, 'Demo camera cannot run');
    const lines = screen.lines();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(time);
    expect(lines[0]!.replace(time, '')).toBe('INFO: Seeded demo data');
    expect(lines[1]!.replace(time, '')).toBe('WARN: Demo camera cannot run {"camera":"Top gate"}');
    expect(lines.join('\n')).not.toMatch(/pid|hostname/);
  });

  it('reads a request as method, address, status and time, without its ids', () => {
    const screen = terminal();
    createLogger('info', screen.stream)
      .child({ reqId: '8c1d6a52-0c57-4a55-9a54-22c1cf0f8b1a' })
      .info(
        {
          method: 'GET',
          route: '/api/cameras/:id',
          url: '/api/cameras/42?token=[redacted]',
          status: 200,
          responseTime: 4.2,
          ip: '127.0.0.1',
        },
        'request',
      );
    expect(screen.lines().map((line) => line.replace(time, ''))).toEqual([
      'INFO: GET /api/cameras/42?token=[redacted] 200 4.2 ms',
    ]);
  });

  it("names the job a line was written in, and reads a job run as the job's outcome", () => {
    const screen = terminal();
    const logger = createLogger('info', screen.stream);
    runInLogContext({ kind: 'job', job: 'send-login-mail', jobId: 'a1', requestId: 'r1' }, () => {
      logger.info('Sending');
      logJobRun(logger, {
        name: 'send-login-mail',
        id: 'a1',
        requestId: 'r1',
        attempt: 2,
        outcome: 'ok',
        durationMs: 35,
      });
    });
    expect(screen.lines().map((line) => line.replace(time, ''))).toEqual([
      'INFO: [send-login-mail] Sending',
      'INFO: job send-login-mail ok in 35 ms (attempt 2)',
    ]);
  });

  it("puts an error's message on its line, and its stack under it from level error up", () => {
    const screen = terminal();
    const logger = createLogger('info', screen.stream);
    const error = new Error('connect ECONNREFUSED 127.0.0.1:25');
    logger.warn({ err: error }, 'SMTP is slow');
    logger.error({ err: error, attempt: 1 }, 'Job failed, will retry');
    const lines = screen.lines().map((line) => line.replace(time, ''));
    expect(lines[0]).toBe('WARN: SMTP is slow: connect ECONNREFUSED 127.0.0.1:25');
    expect(lines[1]).toBe(
      'ERROR: Job failed, will retry: connect ECONNREFUSED 127.0.0.1:25 {"attempt":1}',
    );
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.slice(2).every((line) => /^ {4}at /.test(line))).toBe(true);
  });

  it('keeps what the JSON keeps out: redaction happens before the line is made readable', () => {
    const screen = terminal();
    createLogger('info', screen.stream).info(
      { smtp: 'smtps://portal:hunter2secret@smtp.example.com:465', password: 'opensesame1' },
      'Mailer ready',
    );
    const output = screen.lines().join('\n');
    expect(output).toContain('Mailer ready');
    expect(output).not.toMatch(/hunter2secret|opensesame1/);
  });
});

describe('the job run line (docs/decisions/106)', () => {
  const run = { name: 'deliver-billing-events', id: 'j1', attempt: 1, durationMs: 3 } as const;

  it('leaves a scheduled run that went well to debug, so the default level has no job chatter', () => {
    const atInfo = jsonSink();
    logJobRun(createLogger('info', atInfo.stream), { ...run, outcome: 'ok' });
    expect(atInfo.parsed()).toEqual([]);

    const atDebug = jsonSink();
    logJobRun(createLogger('debug', atDebug.stream), { ...run, outcome: 'ok' });
    expect(atDebug.parsed()).toEqual([
      expect.objectContaining({ level: 20, msg: 'job run', job: 'deliver-billing-events' }),
    ]);
  });

  it('keeps a failed run and a run a request queued at info', () => {
    const sink = jsonSink();
    const logger = createLogger('info', sink.stream);
    logJobRun(logger, { ...run, outcome: 'failed' });
    logJobRun(logger, { ...run, name: 'send-login-mail', requestId: 'r1', outcome: 'ok' });
    expect(sink.parsed()).toEqual([
      expect.objectContaining({ level: 30, job: 'deliver-billing-events', outcome: 'failed' }),
      expect.objectContaining({ level: 30, job: 'send-login-mail', requestId: 'r1' }),
    ]);
  });
});
