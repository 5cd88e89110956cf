/**
 * Readiness: may this instance take traffic (and jobs) now? The database answers and holds every
 * migration this build knows, the job queue's schema is there, and the instance is not draining.
 * Each provider's last call is reported beside it but never makes the instance not ready: a
 * provider outage is the same on every instance, and taking them all out of the load balancer
 * would turn a partial outage into a total one (docs/decisions/070).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DatabaseHandle } from '../../db/client.ts';
import { databaseUnreachableCause } from '../../lib/database-errors.ts';
import { databaseOutage, type DatabaseOutage } from '../../lib/database-outage.ts';
import {
  lastProviderCalls,
  type ProviderCallState,
  type ProviderName,
} from '../../lib/provider-calls.ts';

export type CheckState = 'ok' | 'failing' | 'not-checked';

export interface ReadinessReport {
  /**
   * `ready` (200): take traffic. `degraded` (200): serving, but the database cannot be reached
   * from here, so requests that need it answer 503 with Retry-After; kept in the load balancer,
   * because a database outage is the same on every instance (decision 102). `not-ready` (503):
   * this instance cannot serve (migrations behind, no job queue, a database error of its own).
   * `draining` (503): shutting down.
   */
  status: 'ready' | 'degraded' | 'not-ready' | 'draining';
  /** Why not ready, one sentence each for the operator; empty when ready. */
  reasons: string[];
  checks: { database: CheckState; migrations: CheckState; jobQueue: CheckState };
  /** When the background check last ran (ISO); the answer never waits for the database. */
  checkedAt?: string;
  /** Each provider's last call in this process: reported, not counted (see above). */
  providers: Record<ProviderName, Pick<ProviderCallState, 'state' | 'at'>>;
}

export interface Readiness {
  /**
   * The report from what the process knows: the last background check, and every request or
   * heartbeat that met the database unreachable since (lib/database-outage.ts). Asks nothing.
   */
  check(): Promise<ReadinessReport>;
  /** Runs the checks now and keeps their outcome (the background loop; tests; before listening). */
  refresh(): Promise<ReadinessReport>;
  /** Checks now and every `intervalMs` until `stop`. */
  start(): void;
  stop(): void;
  /** From now on the instance answers `draining` at once, whatever the checks would say. */
  startDraining(): void;
  readonly isDraining: boolean;
}

export interface ReadinessDependencies {
  database: Pick<DatabaseHandle, 'executeSql'>;
  /** The migrations this build applies (db/migrations by default). */
  migrationsFolder?: string;
  /** How long one check may take before it counts as failing. */
  timeoutMs?: number;
  /** How often the background check runs (5 s: the documented load balancer's interval). */
  intervalMs?: number;
  providerCalls?: () => Record<ProviderName, ProviderCallState>;
  /** The process's picture of the database (lib/database-outage.ts by default). */
  outage?: Pick<DatabaseOutage, 'state' | 'noteReachable' | 'noteUnreachable'>;
  /** Told when the status changes (not on every probe: a load balancer asks every few seconds). */
  log?: {
    warn(details: object, message: string): void;
    info(details: object, message: string): void;
  };
}

export const defaultMigrationsFolder = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../db/migrations',
);

interface LatestMigration {
  tag: string;
  /** drizzle's `created_at` for it: the journal's `when`. */
  createdAt: number;
  hash: string;
}

/** The newest migration of this build, as drizzle records it once applied. */
export function latestMigrationOf(migrationsFolder: string): LatestMigration {
  const journal = JSON.parse(
    fs.readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8'),
  ) as { entries: { tag: string; when: number }[] };
  const latest = journal.entries.at(-1);
  if (!latest) throw new Error(`No migrations in ${migrationsFolder}`);
  const text = fs.readFileSync(path.join(migrationsFolder, `${latest.tag}.sql`), 'utf8');
  return {
    tag: latest.tag,
    createdAt: latest.when,
    hash: createHash('sha256').update(text).digest('hex'),
  };
}

class CheckTimeoutError extends Error {}

function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new CheckTimeoutError()), timeoutMs);
    timer.unref();
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** A failure's short name for the probe's answer: a code, never a message with host names. */
function failureName(error: unknown, timeoutMs: number): string {
  if (error instanceof CheckTimeoutError) return `no answer within ${timeoutMs / 1000} s`;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : 'error';
}

const undefinedTable = '42P01';
const undefinedSchema = '3F000';

/** What the last background check found; `reasons` holds the failures other than reachability. */
interface CheckedState {
  at: string;
  database: CheckState;
  migrations: CheckState;
  jobQueue: CheckState;
  /** The database failed this check in a way that means it cannot be reached (a shared outage). */
  unreachableCause?: string;
  reasons: string[];
}

export function createReadiness(deps: ReadinessDependencies): Readiness {
  const timeoutMs = deps.timeoutMs ?? 2000;
  const intervalMs = deps.intervalMs ?? 5000;
  const latest = latestMigrationOf(deps.migrationsFolder ?? defaultMigrationsFolder);
  const providerCalls = deps.providerCalls ?? lastProviderCalls;
  const outage = deps.outage ?? databaseOutage;
  let isDraining = false;
  let lastStatus: ReadinessReport['status'] | undefined;
  let checked: CheckedState | undefined;
  let running: Promise<ReadinessReport> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let isStarted = false;

  const query = (text: string) => withTimeout(deps.database.executeSql(text), timeoutMs);

  async function checkMigrations(reasons: string[]): Promise<CheckState> {
    try {
      const { rows } = await query(
        'select hash, created_at from drizzle.__drizzle_migrations order by created_at desc limit 1',
      );
      const applied = rows[0] as { hash: string; created_at: string | number } | undefined;
      const appliedAt = applied ? Number(applied.created_at) : 0;
      // A newer database (a later build migrated it during a rolling deploy) still serves this one.
      if (
        applied &&
        (appliedAt > latest.createdAt ||
          (appliedAt === latest.createdAt && applied.hash === latest.hash))
      ) {
        return 'ok';
      }
      reasons.push(
        applied && appliedAt === latest.createdAt
          ? `database migration ${latest.tag} was applied from a different file than this build's`
          : `database migrations behind: this build needs ${latest.tag}`,
      );
      return 'failing';
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === undefinedTable || code === undefinedSchema) {
        reasons.push(`database not migrated: this build needs ${latest.tag}`);
      } else {
        reasons.push(`database migrations unreadable (${failureName(error, timeoutMs)})`);
      }
      return 'failing';
    }
  }

  async function checkJobQueue(reasons: string[]): Promise<CheckState> {
    try {
      await query('select version from pgboss.version');
      return 'ok';
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      reasons.push(
        code === undefinedTable || code === undefinedSchema
          ? 'job queue not set up (no pgboss schema)'
          : `job queue unreachable (${failureName(error, timeoutMs)})`,
      );
      return 'failing';
    }
  }

  function providers(): ReadinessReport['providers'] {
    // The last error's text stays in the logs: this answer is public and may name hosts.
    return Object.fromEntries(
      Object.entries(providerCalls()).map(([name, call]) => [
        name,
        call.at ? { state: call.state, at: call.at } : { state: call.state },
      ]),
    ) as ReadinessReport['providers'];
  }

  /** The checks themselves: the only place readiness queries the database. */
  async function runChecks(): Promise<CheckedState> {
    const at = new Date().toISOString();
    const reasons: string[] = [];
    try {
      await query('select 1');
    } catch (error) {
      const cause =
        error instanceof CheckTimeoutError
          ? `no answer within ${timeoutMs / 1000} s`
          : databaseUnreachableCause(error);
      if (cause !== undefined) {
        outage.noteUnreachable(cause, { source: 'readiness check', error });
        return {
          at,
          database: 'failing',
          migrations: 'not-checked',
          jobQueue: 'not-checked',
          unreachableCause: cause,
          reasons,
        };
      }
      // Reached, but refused by it (a password, a permission, a closed handle): this instance's
      // own problem, so it leaves the load balancer.
      reasons.push(`database unusable (${failureName(error, timeoutMs)})`);
      return {
        at,
        database: 'failing',
        migrations: 'not-checked',
        jobQueue: 'not-checked',
        reasons,
      };
    }
    outage.noteReachable();
    const [migrations, jobQueue] = await Promise.all([
      checkMigrations(reasons),
      checkJobQueue(reasons),
    ]);
    return { at, database: 'ok', migrations, jobQueue, reasons };
  }

  function report(): ReadinessReport {
    if (isDraining) {
      return {
        status: 'draining',
        reasons: ['draining: this instance is shutting down'],
        checks: { database: 'not-checked', migrations: 'not-checked', jobQueue: 'not-checked' },
        ...(checked ? { checkedAt: checked.at } : {}),
        providers: providers(),
      };
    }
    if (!checked) {
      return {
        status: 'not-ready',
        reasons: ['starting: not checked yet'],
        checks: { database: 'not-checked', migrations: 'not-checked', jobQueue: 'not-checked' },
        providers: providers(),
      };
    }
    // A request or heartbeat may have met the outage since the last check (or seen it end).
    const known = outage.state();
    const unreachableCause =
      known.state === 'unreachable'
        ? (known.cause ?? checked.unreachableCause)
        : checked.unreachableCause &&
            known.state === 'reachable' &&
            known.lastSuccessAt &&
            known.lastSuccessAt > checked.at
          ? undefined
          : checked.unreachableCause;
    const reasons = [...checked.reasons];
    if (unreachableCause !== undefined) {
      const since = known.unreachableSince ? ` since ${known.unreachableSince}` : '';
      reasons.unshift(
        `database unreachable (${unreachableCause})${since}: requests that need it answer 503`,
      );
    }
    const isOwnProblem = checked.reasons.length > 0;
    return {
      status: isOwnProblem ? 'not-ready' : unreachableCause !== undefined ? 'degraded' : 'ready',
      reasons,
      checks: {
        database: unreachableCause !== undefined ? 'failing' : checked.database,
        migrations:
          unreachableCause !== undefined && checked.database === 'ok'
            ? 'not-checked'
            : checked.migrations,
        jobQueue:
          unreachableCause !== undefined && checked.database === 'ok'
            ? 'not-checked'
            : checked.jobQueue,
      },
      checkedAt: checked.at,
      providers: providers(),
    };
  }

  function noteStatus(next: ReadinessReport) {
    if (next.status === lastStatus) return;
    const previous = lastStatus;
    lastStatus = next.status;
    if (next.status === 'not-ready' || next.status === 'degraded') {
      deps.log?.warn(
        { status: next.status, reasons: next.reasons },
        next.status === 'not-ready' ? 'Not ready' : 'Degraded',
      );
    } else if (previous !== undefined) {
      deps.log?.info({ status: next.status }, `Readiness: ${next.status}`);
    }
  }

  async function refresh(): Promise<ReadinessReport> {
    // One check at a time: a slow database never piles checks up.
    running ??= runChecks()
      .then((state) => {
        checked = state;
        const next = report();
        noteStatus(next);
        return next;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  }

  function schedule() {
    if (!isStarted) return;
    timer = setTimeout(() => {
      void refresh()
        .catch(() => undefined)
        .finally(schedule);
    }, intervalMs);
    // The check alone never keeps the process running.
    timer.unref();
  }

  return {
    get isDraining() {
      return isDraining;
    },
    startDraining() {
      isDraining = true;
      noteStatus(report());
    },
    async check() {
      const next = report();
      noteStatus(next);
      return next;
    },
    refresh,
    start() {
      if (isStarted) return;
      isStarted = true;
      void refresh()
        .catch(() => undefined)
        .finally(schedule);
    },
    stop() {
      isStarted = false;
      clearTimeout(timer);
    },
  };
}
