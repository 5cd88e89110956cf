/**
 * The connectivity port over a SIM platform's REST API (CONNECTIVITY=http). The API it expects is
 * written down in docs/connectivity-api.md; the fake server in
 * apps/server/test/fakes/fake-sim-platform-server.ts implements it for tests and local trials.
 *
 * Every call has a time-out per attempt and is retried on network errors, time-outs, 429 and 5xx
 * (honouring Retry-After), at most `maxAttempts` times. State changes carry an Idempotency-Key
 * that stays the same across the retries, so a retried change is applied once.
 */
import { doublingWait, withJitter } from '../../lib/back-off.ts';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AppError, notFound } from '../../errors.ts';
import { trackProviderCall } from '../../lib/provider-calls.ts';
import {
  assertOpenableCameraPorts,
  maxPlatformBatchSize,
  platformUnavailable,
  signalStrengths,
  type ConnectivityPlatform,
  type PlatformSim,
  type StateChangeOptions,
} from './connectivity.ts';

const platformSim = z.object({
  iccid: z.string(),
  state: z.enum(['stock', 'active', 'paused', 'terminated']),
  barred: z.boolean(),
  activatedAt: z.iso.datetime({ offset: true }).nullable(),
  terminatedAt: z.iso.datetime({ offset: true }).nullable(),
});
const simsAnswer = z.object({ sims: z.array(platformSim) });
const simAnswer = z.object({ sim: platformSim });
const routersAnswer = z.object({
  routers: z.array(
    z.object({
      iccid: z.string(),
      localNetworkName: z.string(),
      networkProvider: z.string(),
      signalStrength: z.enum(signalStrengths),
      signalDbm: z.number().int(),
      reportedAt: z.iso.datetime({ offset: true }),
    }),
  ),
});
const usageAnswer = z.object({
  usage: z.array(
    z.object({
      iccid: z.string(),
      day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
      bytes: z.number().int().min(0),
    }),
  ),
});
const cameraAccessAnswer = z.object({
  access: z.object({
    iccid: z.string(),
    host: z.string().min(1),
    ports: z.array(
      z.object({
        camera: z.number().int().min(1).max(65535),
        public: z.number().int().min(1).max(65535),
      }),
    ),
  }),
});
const dataStopAnswer = z.object({
  dataStop: z.object({ iccid: z.string(), stopped: z.boolean() }),
});
const errorAnswer = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

export interface HttpSimPlatformOptions {
  /** Base URL, e.g. https://sims.example.net/api (paths below it start with /v1). */
  url: string;
  apiKey: string;
  /** Per attempt. */
  timeoutMs?: number;
  maxAttempts?: number;
  /** First back-off; doubles each retry (with jitter), capped at 2 s. */
  retryDelayMs?: number;
  fetch?: typeof fetch;
  /** Told about each failed attempt that will be retried (logging). */
  onRetry?: (detail: { path: string; attempt: number; reason: string }) => void;
}

const maxRetryAfterMs = 5_000;

class RetryableError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

function toPlatformSim(sim: z.infer<typeof platformSim>): PlatformSim {
  return {
    iccid: sim.iccid,
    state: sim.state,
    isBarred: sim.barred,
    activatedAt: sim.activatedAt ? new Date(sim.activatedAt) : null,
    terminatedAt: sim.terminatedAt ? new Date(sim.terminatedAt) : null,
  };
}

export interface HttpSimPlatform extends ConnectivityPlatform {
  readonly kind: 'http';
}

export function createHttpSimPlatform(options: HttpSimPlatformOptions): HttpSimPlatform {
  const baseUrl = options.url.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxAttempts = options.maxAttempts ?? 3;
  const retryDelayMs = options.retryDelayMs ?? 200;
  const fetchImpl = options.fetch ?? fetch;

  /** One attempt: the parsed JSON of a 2xx, an AppError for a final answer, RetryableError else. */
  async function attempt(
    method: 'GET' | 'POST',
    path: string,
    headers: Record<string, string>,
    requestBody: object,
  ): Promise<unknown> {
    let response: Response;
    let text: string;
    try {
      response = await fetchImpl(`${baseUrl}${path}`, {
        method,
        headers: {
          accept: 'application/json',
          authorization: `Bearer ${options.apiKey}`,
          ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        body: method === 'POST' ? JSON.stringify(requestBody) : undefined,
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      const isTimeout = error instanceof Error && error.name === 'TimeoutError';
      throw new RetryableError(isTimeout ? `no answer within ${timeoutMs} ms` : 'network error');
    }
    if (response.status === 429 || response.status >= 500) {
      const retryAfterSeconds = Number(response.headers.get('retry-after'));
      throw new RetryableError(
        `HTTP ${response.status}`,
        Number.isFinite(retryAfterSeconds) && retryAfterSeconds >= 0
          ? Math.min(retryAfterSeconds * 1000, maxRetryAfterMs)
          : undefined,
      );
    }
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw platformUnavailable(`unreadable answer to ${method} ${path}`);
    }
    if (response.ok) return body;
    const message = errorAnswer.safeParse(body).data?.error.message ?? `HTTP ${response.status}`;
    if (response.status === 404) throw notFound(`SIM platform: ${message}`);
    if (response.status === 409) throw new AppError('CONFLICT', `SIM platform: ${message}`);
    // 400, 401, 403, 422…: our request or our credentials are wrong; nothing the user can fix.
    throw platformUnavailable(`it answered ${response.status}: ${message}`);
  }

  async function callWithRetries<T>(
    schema: z.ZodType<T>,
    method: 'GET' | 'POST',
    path: string,
    headers: Record<string, string>,
    requestBody: object,
  ): Promise<T> {
    for (let attemptNumber = 1; ; attemptNumber += 1) {
      try {
        const body = await attempt(method, path, headers, requestBody);
        const parsed = schema.safeParse(body);
        if (!parsed.success) throw platformUnavailable(`unexpected answer to ${method} ${path}`);
        return parsed.data;
      } catch (error) {
        if (!(error instanceof RetryableError)) throw error;
        if (attemptNumber >= maxAttempts) throw platformUnavailable(error.message);
        options.onRetry?.({ path, attempt: attemptNumber, reason: error.message });
        await sleep(
          error.retryAfterMs ?? withJitter(doublingWait(retryDelayMs, attemptNumber, 2_000)),
        );
      }
    }
  }

  /**
   * One call, retries included, tracked for readiness and metrics (decision 071) under its path
   * pattern. The platform's "no such SIM" and "conflict" are answers, not the platform failing.
   */
  async function call<T>(
    schema: z.ZodType<T>,
    method: 'GET' | 'POST',
    path: string,
    headers: Record<string, string> = {},
    requestBody: object = {},
  ): Promise<T> {
    const operation = `${method} ${path.split('?')[0]!.replace(/^\/v1\/sims\/[^/]+/, '/v1/sims/:iccid')}`;
    const outcome = await trackProviderCall('sim-platform', operation, async () => {
      try {
        return { answer: await callWithRetries(schema, method, path, headers, requestBody) };
      } catch (error) {
        if (
          error instanceof AppError &&
          (error.code === 'NOT_FOUND' || error.code === 'CONFLICT')
        ) {
          return { refusal: error };
        }
        throw error;
      }
    });
    if ('refusal' in outcome) throw outcome.refusal;
    return outcome.answer;
  }

  function batchQuery(iccids: readonly string[]): string {
    if (iccids.length > maxPlatformBatchSize) {
      throw new AppError(
        'VALIDATION_FAILED',
        `At most ${maxPlatformBatchSize} SIMs per call, got ${iccids.length}`,
      );
    }
    return `iccids=${iccids.map(encodeURIComponent).join(',')}`;
  }

  function changeState(action: 'activate' | 'pause' | 'resume' | 'terminate') {
    return async (iccid: string, changeOptions: StateChangeOptions = {}) => {
      const answer = await call(
        simAnswer,
        'POST',
        `/v1/sims/${encodeURIComponent(iccid)}/${action}`,
        { 'idempotency-key': changeOptions.idempotencyKey ?? randomUUID() },
      );
      return toPlatformSim(answer.sim);
    };
  }

  return {
    kind: 'http',

    async getSims(iccids) {
      if (iccids.length === 0) return [];
      const answer = await call(simsAnswer, 'GET', `/v1/sims?${batchQuery(iccids)}`);
      return answer.sims.map(toPlatformSim);
    },

    async getRouterStatuses(iccids) {
      if (iccids.length === 0) return [];
      const answer = await call(routersAnswer, 'GET', `/v1/router-status?${batchQuery(iccids)}`);
      return answer.routers.map((router) => ({
        iccid: router.iccid,
        networkName: router.localNetworkName,
        networkProvider: router.networkProvider,
        signalStrength: router.signalStrength,
        signalDbm: router.signalDbm,
        reportedAt: new Date(router.reportedAt),
      }));
    },

    async getDailyUsage({ iccids, from, to }) {
      if (iccids.length === 0) return [];
      const answer = await call(
        usageAnswer,
        'GET',
        `/v1/usage/daily?${batchQuery(iccids)}&from=${from}&to=${to}`,
      );
      return answer.usage;
    },

    activateSim: changeState('activate'),
    pauseSim: changeState('pause'),
    resumeSim: changeState('resume'),
    terminateSim: changeState('terminate'),

    async openCameraPorts(iccid, ports) {
      assertOpenableCameraPorts(ports);
      const answer = await call(
        cameraAccessAnswer,
        'POST',
        `/v1/sims/${encodeURIComponent(iccid)}/camera-access`,
        { 'idempotency-key': randomUUID() },
        { ports },
      );
      const mapped = Object.fromEntries(
        answer.access.ports.map((port) => [port.camera, port.public]),
      ) as Record<number, number>;
      if (ports.some((port) => mapped[port] === undefined)) {
        throw platformUnavailable('it did not open every camera port asked for');
      }
      return { iccid, host: answer.access.host, ports: mapped };
    },

    async setDataStopped(iccid, stopped, changeOptions = {}) {
      const answer = await call(
        dataStopAnswer,
        'POST',
        `/v1/sims/${encodeURIComponent(iccid)}/data-stop`,
        { 'idempotency-key': changeOptions.idempotencyKey ?? randomUUID() },
        { stopped },
      );
      return { iccid, stopped: answer.dataStop.stopped };
    },
  };
}
