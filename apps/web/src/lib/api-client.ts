import { toast } from './toast.tsx';
import { env } from '../config/env.ts';
import { authStore } from './auth-store.ts';
import { takeEarlyAnswer, type EarlyAnswer } from './early-answers.ts';

/** docs/requirements.md#api and #limits: every call gives up after 70 seconds. */
export const requestTimeoutMs = 70_000;

export const sessionExpiredMessage = 'Session expired, please login again';
export const unauthorizedMessage = 'Unauthorized access, please login again';
export const serverErrorMessage = 'Server error, please try again later';
/** An action tried with no connection (decision 119): said at once, nothing kept to send later. */
export const offlineActionMessage =
  'You are offline: this needs a connection, and nothing was sent. Please try again when you have signal.';
const defaultErrorMessage = 'An error occurred';

/** Failures without an HTTP answer (docs/requirements.md#errors): no connection, no answer in time, unreadable body. */
export type TransportErrorStatus = 'FETCH_ERROR' | 'TIMEOUT_ERROR' | 'PARSING_ERROR';

export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    /** The HTTP status, or how the transport failed. */
    readonly status: number | TransportErrorStatus,
    /** The parsed error body, normally `{ code, message }`. */
    readonly data: unknown,
    /** True when the client already told the user, so a screen does not toast the same failure. */
    readonly isReported: boolean,
    description: string,
  ) {
    super(description);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** docs/requirements.md#errors: the answer's message if it is a string, else the fallback, else a generic text. */
export function errorMessage(error: unknown, fallback?: string): string {
  if (error instanceof ApiError && isRecord(error.data) && typeof error.data.message === 'string') {
    return error.data.message;
  }
  return fallback ?? defaultErrorMessage;
}

/**
 * A screen's own failure toast, unless the client already told the user about this failure
 * (a 5xx, 401 or 403 toasts once here): one toast per failure (docs/decisions/014).
 */
export function toastFailure(error: unknown, message: string): void {
  if (error instanceof ApiError && error.isReported) return;
  toast.error(message);
}

type SessionExpiredListener = () => void;
const sessionExpiredListeners = new Set<SessionExpiredListener>();

/** The app navigates to / on expiry; the client cannot reach the router itself. */
export function onSessionExpired(listener: SessionExpiredListener): () => void {
  sessionExpiredListeners.add(listener);
  return () => sessionExpiredListeners.delete(listener);
}

const forbiddenListeners = new Set<() => void>();

/**
 * A 403: the person's role may have changed since the screen was drawn (the owner changed it);
 * the query client reloads what the screen knows of their access (lib/query-client.ts).
 */
export function onForbidden(listener: () => void): () => void {
  forbiddenListeners.add(listener);
  return () => forbiddenListeners.delete(listener);
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  query?: Record<string, string | undefined>;
  body?: unknown;
  /** Cancels the call (TanStack Query passes one); a cancelled call rejects with an AbortError. */
  signal?: AbortSignal;
  /** The bearer token to send; defaults to the current session's, null sends none. */
  token?: string | null;
  /**
   * Set for calls whose failures the screen explains itself, such as the login calls, where a 401
   * means "wrong credentials or link", not "session expired".
   */
  hasOwnErrorHandling?: boolean;
  /** Extra request headers, e.g. the activation wizard's session id. */
  headers?: Record<string, string>;
  /**
   * Sent as `Idempotency-Key` on billing writes: the server applies one key once, so the call is
   * safe to repeat. One key per user intent (idempotencyKeyFor), never one per attempt.
   */
  idempotencyKey?: string;
  /** Sent even while the page unloads (fetch `keepalive`): a live viewer leaving, decision 152. */
  keepalive?: boolean;
}

/** A fresh key for one user intent (a click), in the server's key alphabet. */
export function newIdempotencyKey(): string {
  return `web-${crypto.randomUUID()}`;
}

const intentKeys = new WeakMap<object, string>();

/**
 * The key of one intent: the same object (a mutation's variables, passed again when it is
 * retried) always gets the same key, a new object (a new click) a new one (docs/decisions/027).
 */
export function idempotencyKeyFor(intent: object): string {
  let key = intentKeys.get(intent);
  if (key === undefined) {
    key = newIdempotencyKey();
    intentKeys.set(intent, key);
  }
  return key;
}

/** The API's address for a path, for what the browser fetches itself (a video's playlist). */
export function apiUrl(path: string): string {
  return buildUrl(path, undefined);
}

function buildUrl(path: string, query: RequestOptions['query']): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined) search.set(key, value);
  }
  const queryString = search.toString();
  return `${env.apiBase}${path}${queryString === '' ? '' : `?${queryString}`}`;
}

type ParsedBody = { isParsed: true; value: unknown } | { isParsed: false };

function parseJson(text: string): ParsedBody {
  try {
    return { isParsed: true, value: JSON.parse(text) };
  } catch {
    return { isParsed: false };
  }
}

/** docs/requirements.md#errors toasts; returns whether the user was told. */
function reportHttpError(status: number, sentToken: string | null): boolean {
  if (status === 401) {
    // No session to expire: someone who never signed in is not told "Session expired"; the screen
    // shows the server's own words instead (decision 054).
    if (sentToken === null) return false;
    // An answer to a call made with an older token (one replaced meanwhile by a new sign-in or by
    // impersonation) says nothing about the current session.
    if (sentToken !== authStore.getState().token) return false;
    authStore.clear();
    for (const listener of sessionExpiredListeners) listener();
    toast.error(sessionExpiredMessage, { toastId: 'session-expired' });
    return true;
  }
  if (status === 403) {
    for (const listener of forbiddenListeners) listener();
    toast.error(unauthorizedMessage, { toastId: 'unauthorized' });
    return true;
  }
  if (status >= 500) {
    // One toast however many calls fail together (or are retried).
    toast.error(serverErrorMessage, { toastId: 'server-error' });
    return true;
  }
  return false;
}

/**
 * The one way the portal talks to the API: JSON in and out, bearer token, 70 s timeout, and the
 * spec's error rules. Resolves with the parsed body (undefined for an empty one, e.g. 204).
 */
export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<T> {
  if (options.idempotencyKey === undefined) return requestOnce<T>(path, options);
  try {
    return await requestOnce<T>(path, options);
  } catch (error) {
    // A write that never got an answer may or may not have been applied: with its key it is
    // safe to send once more, and the server answers as it did the first time.
    if (error instanceof ApiError && error.status === 'FETCH_ERROR' && navigator.onLine !== false) {
      return requestOnce<T>(path, options);
    }
    throw error;
  }
}

/** The early answer, or the call's abort (time-out or the caller's) if that comes first. */
function untilAborted(answer: Promise<EarlyAnswer>, signal: AbortSignal): Promise<EarlyAnswer> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason ?? new DOMException('Aborted', 'AbortError'));
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    answer.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

async function requestOnce<T>(path: string, options: RequestOptions): Promise<T> {
  const { method = 'GET', query, body, signal, hasOwnErrorHandling = false } = options;
  const token = options.token === undefined ? authStore.getState().token : options.token;
  const description = `${method} ${path}`;

  const headers: Record<string, string> = { ...options.headers, Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  if (options.idempotencyKey !== undefined) headers['Idempotency-Key'] = options.idempotencyKey;

  const controller = new AbortController();
  let hasTimedOut = false;
  const timer = setTimeout(() => {
    hasTimedOut = true;
    controller.abort();
  }, requestTimeoutMs);
  const abortFromCaller = () => controller.abort(signal?.reason);
  if (signal?.aborted) abortFromCaller();
  else signal?.addEventListener('abort', abortFromCaller, { once: true });

  // A page opened by its address may have asked for this already, before the app arrived
  // (decision 118): that answer is used once, as if this call had made it.
  const url = buildUrl(path, query);
  const early =
    method === 'GET' && body === undefined && url === path
      ? takeEarlyAnswer(path, token)
      : undefined;
  let response: Pick<Response, 'ok' | 'status'>;
  let text: string;
  try {
    if (early) {
      const answer = await untilAborted(early, controller.signal);
      response = { ok: answer.status >= 200 && answer.status < 300, status: answer.status };
      text = answer.text;
    } else {
      const fetched = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: controller.signal,
        ...(options.keepalive ? { keepalive: true } : {}),
      });
      response = fetched;
      // Reading the body is inside the time limit too: a stalled body is as bad as no answer.
      text = await fetched.text();
    }
  } catch (cause) {
    if (hasTimedOut) {
      throw new ApiError('TIMEOUT_ERROR', undefined, false, `${description} timed out`);
    }
    if (signal?.aborted) throw cause;
    // A change asked for with no connection is told once, here; a read shows the page's own
    // notice instead (what the device last knew).
    const isOfflineAction = method !== 'GET' && navigator.onLine === false;
    if (isOfflineAction) toast.error(offlineActionMessage, { toastId: 'offline-action' });
    throw new ApiError(
      'FETCH_ERROR',
      undefined,
      isOfflineAction,
      `${description} failed: ${String(cause)}`,
    );
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', abortFromCaller);
  }

  const parsed: ParsedBody = text === '' ? { isParsed: true, value: undefined } : parseJson(text);
  if (response.ok) {
    if (!parsed.isParsed) {
      throw new ApiError('PARSING_ERROR', text, false, `${description}: the answer is not JSON`);
    }
    return parsed.value as T;
  }
  const isReported = !hasOwnErrorHandling && reportHttpError(response.status, token);
  throw new ApiError(
    response.status,
    parsed.isParsed ? parsed.value : text,
    isReported,
    `${description} answered ${response.status}`,
  );
}
