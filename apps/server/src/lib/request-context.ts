/**
 * Which request or job a log line belongs to (docs/decisions/072). AsyncLocalStorage carries the
 * context through every await, so a service logs and queues jobs without passing an id by hand:
 * the logger's mixin reads it, and a job queued during a request remembers the request's id.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { BlockList, isIPv4, isIPv6 } from 'node:net';

export type LogContext =
  | { kind: 'request'; reqId: string }
  | { kind: 'job'; job: string; jobId: string; requestId?: string };

const storage = new AsyncLocalStorage<LogContext>();

export function currentLogContext(): LogContext | undefined {
  return storage.getStore();
}

/** Runs `work` (and everything it awaits or starts) inside `context`. */
export function runInLogContext<Result>(context: LogContext, work: () => Result): Result {
  return storage.run(context, work);
}

/**
 * The request a job queued now should remember: the current request, or, inside a job that a
 * request started, that request still (a job queuing another keeps the origin).
 */
export function originRequestId(): string | undefined {
  const context = storage.getStore();
  if (!context) return undefined;
  return context.kind === 'request' ? context.reqId : context.requestId;
}

/**
 * The key in a pg-boss job's data that holds the originating request id. The runner takes it
 * out before the job's own payload schema sees the data, so no schema has to know about it.
 */
export const jobRequestIdKey = '_requestId';

/** Adds the current request id (if any) to a job's data. */
export function withOriginRequestId(data: object): object {
  const requestId = originRequestId();
  return requestId ? { ...data, [jobRequestIdKey]: requestId } : data;
}

/** Splits a job's stored data into the payload its schema checks and the originating request. */
export function splitOriginRequestId(data: unknown): { payload: unknown; requestId?: string } {
  if (data === null || typeof data !== 'object' || !(jobRequestIdKey in data)) {
    return { payload: data };
  }
  const { [jobRequestIdKey]: requestId, ...payload } = data as Record<string, unknown>;
  return {
    payload,
    requestId:
      typeof requestId === 'string' && isWellFormedRequestId(requestId) ? requestId : undefined,
  };
}

/**
 * Set on Fastify's per-request child logger (children inherit it through the prototype): it
 * binds `reqId` itself, so the mixin must not write a second `reqId` key on its lines.
 */
export const bindsRequestId = Symbol('bindsRequestId');

/**
 * pino's `mixin`: the context's fields on every line of a logger that does not bind them
 * already (the app's and the workers' root loggers, which services receive as `log`).
 */
export function logContextMixin(
  _mergeObject: object,
  _level: number,
  logger: object,
): Record<string, string> {
  const context = storage.getStore();
  if (!context) return {};
  if (context.kind === 'request') {
    return (logger as { [bindsRequestId]?: boolean })[bindsRequestId]
      ? {}
      : { reqId: context.reqId };
  }
  return context.requestId
    ? { job: context.job, jobId: context.jobId, requestId: context.requestId }
    : { job: context.job, jobId: context.jobId };
}

export const requestIdHeader = 'x-request-id';

const wellFormedRequestId = /^[A-Za-z0-9._-]{1,64}$/;

export function isWellFormedRequestId(value: string): boolean {
  return wellFormedRequestId.test(value);
}

/** proxy-addr's named ranges (TRUST_PROXY accepts the names, docs/decisions/063). */
const namedRanges: Record<string, [string, number, 'ipv4' | 'ipv6'][]> = {
  loopback: [
    ['127.0.0.1', 8, 'ipv4'],
    ['::1', 128, 'ipv6'],
  ],
  linklocal: [
    ['169.254.0.0', 16, 'ipv4'],
    ['fe80::', 10, 'ipv6'],
  ],
  uniquelocal: [
    ['10.0.0.0', 8, 'ipv4'],
    ['172.16.0.0', 12, 'ipv4'],
    ['192.168.0.0', 16, 'ipv4'],
    ['fc00::', 7, 'ipv6'],
  ],
};

function proxyList(entries: string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const named = namedRanges[entry];
    if (named) {
      for (const [network, prefix, family] of named) list.addSubnet(network, prefix, family);
      continue;
    }
    const [address = '', prefix] = entry.split('/');
    const family = isIPv4(address) ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

function isListed(list: BlockList, address: string | undefined): boolean {
  if (!address) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return list.check(mapped[1]!, 'ipv4');
  if (isIPv4(address)) return list.check(address, 'ipv4');
  return isIPv6(address) && list.check(address, 'ipv6');
}

/**
 * Fastify's `genReqId`: a well-formed incoming X-Request-Id when the request came through a
 * trusted proxy (TRUST_PROXY: a hop count, or the socket peer is one of the listed proxies),
 * so an operator follows one id from the proxy's access log into ours; otherwise a fresh UUID.
 * A client talking to us directly cannot choose the id its lines are filed under.
 */
export function requestIdGenerator(
  trustProxy: false | number | string[],
): (request: IncomingMessage) => string {
  const isFromTrustedProxy: (request: IncomingMessage) => boolean =
    trustProxy === false
      ? () => false
      : typeof trustProxy === 'number'
        ? () => true
        : (
            (list) => (request: IncomingMessage) =>
              isListed(list, request.socket?.remoteAddress)
          )(proxyList(trustProxy));
  return (request) => {
    const incoming = request.headers[requestIdHeader];
    if (
      typeof incoming === 'string' &&
      isWellFormedRequestId(incoming) &&
      isFromTrustedProxy(request)
    ) {
      return incoming;
    }
    return randomUUID();
  };
}
