/**
 * A database outage as one process sees it (docs/decisions/102). Every place that meets an error
 * meaning "the database cannot be reached" (lib/database-errors.ts: a refused or dropped
 * connection, a connect time-out, a server shutting down) reports it here:
 *
 * - the log gets at most one line per cause per `logWindowMs` (10 s), saying how many more there
 *   were, and one line when the database answers again, instead of a line per failed request,
 *   heartbeat and job poll;
 * - the process keeps its last word on the database (reachable or not, since when, why), which
 *   /api/readyz and /metrics report without asking the database themselves;
 * - the metrics count each occurrence by cause (lib/metrics.ts observes).
 *
 * One state per process, like the provider calls (lib/provider-calls.ts): the error handler, the
 * heartbeat, the job queue and the readiness check all feed the same picture.
 */
import { databaseUnreachableCause } from './database-errors.ts';

/** At most one log line per cause in this window. */
export const logWindowMs = 10_000;

export interface DatabaseState {
  /** `unknown` until the process has asked the database once (it cannot start without it). */
  state: 'reachable' | 'unreachable' | 'unknown';
  /** ISO time the database last answered. */
  lastSuccessAt?: string;
  /** ISO time the current outage began (the first failure after the last success). */
  unreachableSince?: string;
  /** The latest failure's cause (`ECONNREFUSED`, `57P01`, `connect timeout`…). */
  cause?: string;
}

/** What a caller logs through: a pino logger or a request's logger. */
export interface OutageLog {
  error(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/** Told of each unreachable error; the metrics module subscribes. */
export type DatabaseOutageObserver = (event: { cause: string; source: string }) => void;

interface CauseWindow {
  loggedAt: number;
  /** Occurrences since the last line that were not logged. */
  suppressed: number;
}

export interface DatabaseOutage {
  /**
   * The database could not be reached from `source` (`request`, `heartbeat`, `job queue`…):
   * counted, remembered, and logged unless this cause was logged less than 10 s ago.
   */
  noteUnreachable(
    cause: string,
    details: { source: string; error?: unknown; log?: OutageLog },
  ): void;
  /** The database answered: ends an outage (one line saying how long it lasted). */
  noteReachable(log?: OutageLog): void;
  state(): DatabaseState;
  observe(observer: DatabaseOutageObserver): () => void;
  /** Where lines go when the caller passes no logger of its own (server.ts: the process's). */
  setLog(log: OutageLog | undefined): void;
}

export function createDatabaseOutage(
  options: { now?: () => number; windowMs?: number; log?: OutageLog } = {},
): DatabaseOutage {
  const now = options.now ?? Date.now;
  const windowMs = options.windowMs ?? logWindowMs;
  const windows = new Map<string, CauseWindow>();
  const observers: DatabaseOutageObserver[] = [];
  let current: DatabaseState = { state: 'unknown' };
  let defaultLog = options.log;
  let failuresInOutage = 0;

  return {
    noteUnreachable(cause, { source, error, log }) {
      const at = now();
      for (const observer of observers) observer({ cause, source });
      failuresInOutage += 1;
      current = {
        state: 'unreachable',
        ...(current.lastSuccessAt ? { lastSuccessAt: current.lastSuccessAt } : {}),
        unreachableSince:
          current.state === 'unreachable' && current.unreachableSince
            ? current.unreachableSince
            : new Date(at).toISOString(),
        cause,
      };
      const window = windows.get(cause);
      if (window && at - window.loggedAt < windowMs) {
        window.suppressed += 1;
        return;
      }
      windows.set(cause, { loggedAt: at, suppressed: 0 });
      const target = log ?? defaultLog;
      // The error is logged through the redacting serializer: its SQL and parameters are not
      // (lib/log-redaction.ts); the cause and where it was met say enough to act on.
      target?.error(
        {
          cause,
          source,
          since: current.unreachableSince,
          ...(window ? { notLoggedSinceLastLine: window.suppressed } : {}),
          ...(error instanceof Error ? { err: error } : {}),
        },
        `Database unreachable (${cause}); logged at most once per cause every ${windowMs / 1000} s`,
      );
    },
    noteReachable(log) {
      const at = new Date(now()).toISOString();
      if (current.state === 'unreachable') {
        const since = current.unreachableSince;
        const seconds = since ? Math.round((now() - Date.parse(since)) / 100) / 10 : undefined;
        (log ?? defaultLog)?.warn(
          { since, seconds, failures: failuresInOutage, lastCause: current.cause },
          `Database reachable again after ${seconds ?? '?'} s`,
        );
        windows.clear();
      }
      failuresInOutage = 0;
      current = { state: 'reachable', lastSuccessAt: at };
    },
    state: () => ({ ...current }),
    setLog(log) {
      defaultLog = log;
    },
    observe(observer) {
      observers.push(observer);
      return () => {
        const index = observers.indexOf(observer);
        if (index >= 0) observers.splice(index, 1);
      };
    },
  };
}

/**
 * The process's one picture of the database. Its default log is set by server.ts (the process
 * logger, `setLog`); a caller with a better one (a request's, with its id) passes it along.
 */
export const databaseOutage = createDatabaseOutage();

/**
 * Reports `error` when it means the database cannot be reached; returns its cause, or undefined
 * for any other error (which the caller handles as before).
 */
export function reportIfDatabaseUnreachable(
  error: unknown,
  details: { source: string; log?: OutageLog },
): string | undefined {
  const cause = databaseUnreachableCause(error);
  if (cause === undefined) return undefined;
  databaseOutage.noteUnreachable(cause, { ...details, error });
  return cause;
}
