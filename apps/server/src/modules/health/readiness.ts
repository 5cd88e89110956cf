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
import {
  lastProviderCalls,
  type ProviderCallState,
  type ProviderName,
} from '../../lib/provider-calls.ts';

export type CheckState = 'ok' | 'failing' | 'not-checked';

export interface ReadinessReport {
  status: 'ready' | 'not-ready' | 'draining';
  /** Why not ready, one sentence each for the operator; empty when ready. */
  reasons: string[];
  checks: { database: CheckState; migrations: CheckState; jobQueue: CheckState };
  /** Each provider's last call in this process: reported, not counted (see above). */
  providers: Record<ProviderName, Pick<ProviderCallState, 'state' | 'at'>>;
}

export interface Readiness {
  check(): Promise<ReadinessReport>;
  /** From now on the instance answers `draining` at once, whatever the checks would say. */
  startDraining(): void;
  readonly isDraining: boolean;
}

export interface ReadinessDependencies {
  database: Pick<DatabaseHandle, 'executeSql'>;
  /** The migrations this build applies (db/migrations by default). */
  migrationsFolder?: string;
  /** How long one check may take before it counts as failing; a probe must answer promptly. */
  timeoutMs?: number;
  providerCalls?: () => Record<ProviderName, ProviderCallState>;
  /** Told when the status changes (not on every probe: a load balancer asks every few seconds). */
  log?: {
    warn(details: object, message: string): void;
    info(details: object, message: string): void;
  };
}

const defaultMigrationsFolder = path.join(
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

export function createReadiness(deps: ReadinessDependencies): Readiness {
  const timeoutMs = deps.timeoutMs ?? 2000;
  const latest = latestMigrationOf(deps.migrationsFolder ?? defaultMigrationsFolder);
  const providerCalls = deps.providerCalls ?? lastProviderCalls;
  let isDraining = false;
  let lastStatus: ReadinessReport['status'] | undefined;

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

  function noteStatus(report: ReadinessReport) {
    if (report.status === lastStatus) return;
    const previous = lastStatus;
    lastStatus = report.status;
    if (report.status === 'not-ready') {
      deps.log?.warn({ reasons: report.reasons }, 'Not ready');
    } else if (previous !== undefined) {
      deps.log?.info({ status: report.status }, `Readiness: ${report.status}`);
    }
  }

  return {
    get isDraining() {
      return isDraining;
    },
    startDraining() {
      isDraining = true;
    },
    async check() {
      if (isDraining) {
        const report: ReadinessReport = {
          status: 'draining',
          reasons: ['draining: this instance is shutting down'],
          checks: { database: 'not-checked', migrations: 'not-checked', jobQueue: 'not-checked' },
          providers: providers(),
        };
        noteStatus(report);
        return report;
      }
      const reasons: string[] = [];
      let database: CheckState = 'ok';
      try {
        await query('select 1');
      } catch (error) {
        reasons.push(`database unreachable (${failureName(error, timeoutMs)})`);
        database = 'failing';
      }
      // Without a database the other two cannot be known; say so once, not three times.
      const [migrations, jobQueue]: CheckState[] =
        database === 'ok'
          ? await Promise.all([checkMigrations(reasons), checkJobQueue(reasons)])
          : ['not-checked', 'not-checked'];
      const report: ReadinessReport = {
        status: reasons.length === 0 ? 'ready' : 'not-ready',
        reasons,
        checks: { database, migrations: migrations!, jobQueue: jobQueue! },
        providers: providers(),
      };
      noteStatus(report);
      return report;
    },
  };
}
