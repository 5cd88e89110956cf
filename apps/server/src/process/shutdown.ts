/**
 * The graceful shutdown on SIGTERM or SIGINT (docs/decisions/070): /api/readyz answers
 * `draining` at once; the process keeps serving for the grace so the load balancer sees it and
 * stops sending requests; then the steps run in order (stop accepting and finish in-flight
 * requests, release jobs and recordings, close the rest) and the process exits 0. A step that
 * fails is logged and the next still runs (the database is closed whatever happened to the
 * mailer); the exit is then 1. A hard time-out exits 1 if the steps hang; a second signal exits
 * 1 at once (someone pressed Ctrl-C twice).
 */

export interface ShutdownStep {
  /** What the log says it is doing, e.g. "HTTP" or "jobs and recordings". */
  name: string;
  run(): Promise<void>;
}

export interface ShutdownOptions {
  readiness: { startDraining(): void };
  /** How long to keep serving after readyz says draining (SHUTDOWN_GRACE_SECONDS). */
  graceSeconds: number;
  /** The steps' whole allowance, after the grace. */
  timeoutMs: number;
  steps: ShutdownStep[];
  log: {
    info(details: object, message: string): void;
    error(details: object, message: string): void;
  };
  exit(code: number): void;
  /** Waits out the grace (tests pass one that resolves at once). */
  wait?: (ms: number) => Promise<void>;
}

/** Thirty seconds for the steps: pg-boss gives running jobs 20 s before it fails them back. */
export const shutdownStepsTimeoutMs = 30_000;

const defaultWait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Returns the signal handler; call it with the signal's name. */
export function createShutdown(options: ShutdownOptions): (signal: string) => Promise<void> {
  const wait = options.wait ?? defaultWait;
  let isShuttingDown = false;

  return async function shutdown(signal: string) {
    if (isShuttingDown) {
      options.log.error({ signal }, 'Second signal during shutdown: exiting now');
      options.exit(1);
      return;
    }
    isShuttingDown = true;
    options.readiness.startDraining();
    options.log.info(
      { signal, graceSeconds: options.graceSeconds },
      'Shutting down: /api/readyz answers draining; still serving during the grace',
    );
    if (options.graceSeconds > 0) await wait(options.graceSeconds * 1000);

    // Started after the grace, which is the operator's to choose; not unref'd: a step left
    // hanging on nothing must still end in an exit.
    const hardTimeout = setTimeout(() => {
      options.log.error(
        { timeoutSeconds: options.timeoutMs / 1000 },
        'Shutdown did not finish in time: exiting',
      );
      options.exit(1);
    }, options.timeoutMs);

    let hasFailed = false;
    for (const step of options.steps) {
      try {
        await step.run();
      } catch (error) {
        hasFailed = true;
        options.log.error({ err: error, step: step.name }, `Shutdown: ${step.name} failed`);
      }
    }
    clearTimeout(hardTimeout);
    options.log.info({ signal, isClean: !hasFailed }, 'Shut down');
    options.exit(hasFailed ? 1 : 0);
  };
}
