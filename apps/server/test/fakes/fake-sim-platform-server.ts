/**
 * A fake SIM platform speaking the REST API of docs/connectivity-api.md, in memory, for the HTTP
 * adapter's tests (including failures: errors, slow answers, garbage) and for trying
 * CONNECTIVITY=http by hand:
 *
 *   npx tsx apps/server/test/fakes/fake-sim-platform-server.ts 4100 secret-key
 *
 * then start the portal with CONNECTIVITY=http CONNECTIVITY_URL=http://127.0.0.1:4100
 * CONNECTIVITY_API_KEY=secret-key. Unknown SIMs asked for by the portal are provisioned as
 * active on first sight, so the demo data works against it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import {
  nextSimState,
  signalStrengthFromDbm,
  type PlatformSimState,
  type SignalStrength,
} from '../../src/providers/connectivity/connectivity.ts';

export interface FakeSim {
  iccid: string;
  state: PlatformSimState;
  barred: boolean;
  activatedAt: string | null;
  terminatedAt: string | null;
}

export interface FakeRouter {
  iccid: string;
  localNetworkName: string;
  networkProvider: string;
  signalStrength: SignalStrength;
  signalDbm: number;
  reportedAt: string;
}

/** How the next matching requests misbehave. */
export interface InjectedFault {
  /** Answer with this status (and a JSON error body unless `body` is given). */
  status?: number;
  /** Wait this long before answering (to trigger the client's time-out). */
  delayMs?: number;
  /** A raw body to send instead, e.g. 'not json'. */
  body?: string;
  retryAfterSeconds?: number;
  /** Only requests whose path starts with this; any request when absent. */
  pathPrefix?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  authorization: string | undefined;
}

export interface FakeSimPlatform {
  url: string;
  sims: Map<string, FakeSim>;
  routers: Map<string, FakeRouter>;
  /** SIMs whose data the customer stopped. */
  dataStopped: Set<string>;
  /** iccid → day → bytes */
  usage: Map<string, Map<string, number>>;
  requests: RecordedRequest[];
  /** State changes actually applied (a replayed idempotent request is not counted). */
  appliedChanges: { iccid: string; action: string }[];
  /** The next `count` matching requests fail as described. */
  failNext(count: number, fault: InjectedFault): void;
  addSim(sim: Partial<FakeSim> & { iccid: string }): FakeSim;
  setUsage(iccid: string, day: string, bytes: number): void;
  setRouter(iccid: string, router: Partial<FakeRouter> & { signalDbm: number }): void;
  close(): Promise<void>;
}

export async function startFakeSimPlatform(
  options: {
    apiKey: string;
    port?: number;
    provisionUnknownSims?: boolean;
    /** Where opened camera ports lead (every camera behind this fake is the same RTSP server). */
    camera?: { host: string; port: number };
  } = { apiKey: 'test' },
): Promise<FakeSimPlatform> {
  const sims = new Map<string, FakeSim>();
  const routers = new Map<string, FakeRouter>();
  const usage = new Map<string, Map<string, number>>();
  const requests: RecordedRequest[] = [];
  const appliedChanges: { iccid: string; action: string }[] = [];
  /** SIMs whose data the customer stopped (POST /v1/sims/:iccid/data-stop). */
  const dataStopped = new Set<string>();
  const faults: (InjectedFault & { remaining: number })[] = [];
  const idempotentAnswers = new Map<string, { status: number; body: unknown }>();

  const addSim = (sim: Partial<FakeSim> & { iccid: string }): FakeSim => {
    const full: FakeSim = {
      state: 'active',
      barred: false,
      activatedAt: '2025-08-01T00:00:00.000Z',
      terminatedAt: null,
      ...sim,
    };
    sims.set(sim.iccid, full);
    return full;
  };

  const findSim = (iccid: string): FakeSim | undefined =>
    sims.get(iccid) ?? (options.provisionUnknownSims ? addSim({ iccid }) : undefined);

  const takeFault = (path: string): InjectedFault | undefined => {
    const index = faults.findIndex(
      (fault) => fault.remaining > 0 && (!fault.pathPrefix || path.startsWith(fault.pathPrefix)),
    );
    if (index < 0) return undefined;
    const fault = faults[index]!;
    fault.remaining -= 1;
    if (fault.remaining === 0) faults.splice(index, 1);
    return fault;
  };

  const iccidList = (url: URL): string[] | { error: string } => {
    const raw = url.searchParams.get('iccids') ?? '';
    const iccids = raw.split(',').filter(Boolean);
    if (iccids.length === 0) return { error: 'iccids is required' };
    if (iccids.length > 100) return { error: 'at most 100 iccids' };
    return iccids;
  };

  function route(
    method: string,
    url: URL,
    requestBody: unknown,
  ): { status: number; body: unknown } {
    const error = (status: number, code: string, message: string) => ({
      status,
      body: { error: { code, message } },
    });
    if (method === 'GET' && url.pathname === '/v1/sims') {
      const iccids = iccidList(url);
      if (!Array.isArray(iccids)) return error(400, 'bad_request', iccids.error);
      return { status: 200, body: { sims: iccids.flatMap((iccid) => findSim(iccid) ?? []) } };
    }
    if (method === 'GET' && url.pathname === '/v1/router-status') {
      const iccids = iccidList(url);
      if (!Array.isArray(iccids)) return error(400, 'bad_request', iccids.error);
      const answer = iccids.flatMap((iccid) => {
        const sim = findSim(iccid);
        if (!sim || sim.state !== 'active' || sim.barred) return [];
        return (
          routers.get(iccid) ?? {
            iccid,
            localNetworkName: `Farmcam-${iccid.slice(-4)}`,
            networkProvider: 'EE',
            signalStrength: signalStrengthFromDbm(-84),
            signalDbm: -84,
            reportedAt: new Date().toISOString(),
          }
        );
      });
      return { status: 200, body: { routers: answer } };
    }
    if (method === 'GET' && url.pathname === '/v1/usage/daily') {
      const iccids = iccidList(url);
      if (!Array.isArray(iccids)) return error(400, 'bad_request', iccids.error);
      const from = url.searchParams.get('from') ?? '';
      const to = url.searchParams.get('to') ?? '';
      if (!/^\d{4}-\d{2}-\d{2}$/.test(from) || !/^\d{4}-\d{2}-\d{2}$/.test(to)) {
        return error(400, 'bad_request', 'from and to are YYYY-MM-DD');
      }
      const rows = iccids.flatMap((iccid) =>
        [...(usage.get(iccid) ?? new Map<string, number>())]
          .filter(([day]) => day >= from && day <= to)
          .map(([day, bytes]) => ({ iccid, day, bytes })),
      );
      return { status: 200, body: { usage: rows } };
    }
    const cameraAccess = /^\/v1\/sims\/(\d{19,20})\/camera-access$/.exec(url.pathname);
    if (method === 'POST' && cameraAccess) {
      const sim = findSim(cameraAccess[1]!);
      if (!sim) return error(404, 'not_found', 'Unknown SIM');
      if (sim.state !== 'active' || sim.barred) {
        return error(409, 'sim_not_active', 'Camera ports open only for an active, unbarred SIM');
      }
      const ports = (requestBody as { ports?: unknown } | undefined)?.ports;
      if (!Array.isArray(ports) || ports.length === 0 || ports.some((port) => port !== 554)) {
        return error(400, 'bad_request', 'ports must list 554 (RTSP) only');
      }
      const camera = options.camera ?? { host: '127.0.0.1', port: 8554 };
      return {
        status: 200,
        body: {
          access: {
            iccid: sim.iccid,
            host: camera.host,
            ports: ports.map((port: number) => ({ camera: port, public: camera.port })),
          },
        },
      };
    }
    const dataStop = /^\/v1\/sims\/(\d{19,20})\/data-stop$/.exec(url.pathname);
    if (method === 'POST' && dataStop) {
      const sim = findSim(dataStop[1]!);
      if (!sim) return error(404, 'not_found', 'Unknown SIM');
      if (sim.state === 'terminated') {
        return error(409, 'sim_terminated', "A terminated SIM's data cannot be stopped or started");
      }
      const stopped = (requestBody as { stopped?: unknown } | undefined)?.stopped;
      if (typeof stopped !== 'boolean')
        return error(400, 'bad_request', 'stopped must be true or false');
      if (dataStopped.has(sim.iccid) !== stopped) {
        if (stopped) dataStopped.add(sim.iccid);
        else dataStopped.delete(sim.iccid);
        appliedChanges.push({ iccid: sim.iccid, action: stopped ? 'data-stop' : 'data-start' });
      }
      return { status: 200, body: { dataStop: { iccid: sim.iccid, stopped } } };
    }
    const change = /^\/v1\/sims\/(\d{19,20})\/(activate|pause|resume|terminate)$/.exec(
      url.pathname,
    );
    if (method === 'POST' && change) {
      const [, iccid, action] = change as unknown as [string, string, 'activate'];
      const sim = findSim(iccid);
      if (!sim) return error(404, 'not_found', 'Unknown SIM');
      const next = nextSimState(sim.state, action);
      if (typeof next !== 'string') return error(409, 'invalid_transition', next.error);
      if (next !== sim.state) {
        const now = new Date().toISOString();
        if (next === 'active' && !sim.activatedAt) sim.activatedAt = now;
        if (next === 'terminated') sim.terminatedAt = now;
        sim.state = next;
        appliedChanges.push({ iccid, action });
      }
      return { status: 200, body: { sim } };
    }
    return error(404, 'not_found', `No route ${method} ${url.pathname}`);
  }

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const idempotencyKey = request.headers['idempotency-key'] as string | undefined;
    requests.push({
      method: request.method ?? 'GET',
      path: `${url.pathname}${url.search}`,
      idempotencyKey,
      authorization: request.headers.authorization,
    });
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      let requestBody: unknown;
      try {
        requestBody = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
      } catch {
        requestBody = undefined;
      }
      const send = (status: number, body: string, headers: Record<string, string> = {}) => {
        if (response.destroyed) return;
        response.writeHead(status, { 'content-type': 'application/json', ...headers });
        response.end(body);
      };
      const answer = () => {
        if (request.headers.authorization !== `Bearer ${options.apiKey}`) {
          return send(401, JSON.stringify({ error: { code: 'unauthorized', message: 'Bad key' } }));
        }
        if (request.method === 'POST' && idempotencyKey) {
          const replay = idempotentAnswers.get(idempotencyKey);
          if (replay) return send(replay.status, JSON.stringify(replay.body));
        }
        const result = route(request.method ?? 'GET', url, requestBody);
        if (request.method === 'POST' && idempotencyKey && result.status < 500) {
          idempotentAnswers.set(idempotencyKey, result);
        }
        send(result.status, JSON.stringify(result.body));
      };
      const fault = takeFault(url.pathname);
      if (!fault) return answer();
      setTimeout(() => {
        if (fault.status === undefined && fault.body === undefined) return answer();
        const headers: Record<string, string> =
          fault.retryAfterSeconds === undefined
            ? {}
            : { 'retry-after': String(fault.retryAfterSeconds) };
        send(
          fault.status ?? 200,
          fault.body ?? JSON.stringify({ error: { code: 'fault', message: 'Injected failure' } }),
          headers,
        );
      }, fault.delayMs ?? 0);
    });
  });

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    sims,
    routers,
    dataStopped,
    usage,
    requests,
    appliedChanges,
    failNext: (count, fault) => faults.push({ ...fault, remaining: count }),
    addSim,
    setUsage: (iccid, day, bytes) => {
      let days = usage.get(iccid);
      if (!days) usage.set(iccid, (days = new Map()));
      days.set(day, bytes);
    },
    setRouter: (iccid, router) => {
      routers.set(iccid, {
        iccid,
        localNetworkName: `Farmcam-${iccid.slice(-4)}`,
        networkProvider: 'Vodafone UK',
        signalStrength: signalStrengthFromDbm(router.signalDbm),
        reportedAt: new Date().toISOString(),
        ...router,
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const port = Number(process.argv[2] ?? 4100);
  const apiKey = process.argv[3] ?? 'secret-key';
  const platform = await startFakeSimPlatform({ apiKey, port, provisionUnknownSims: true });
  process.stdout.write(`Fake SIM platform at ${platform.url} (API key "${apiKey}")\n`);
}
