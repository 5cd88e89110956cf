/**
 * Child processes the bench starts, each in its own process group so that stopping it also stops
 * whatever it started (tsx runs the script in a second node process). Every process is registered
 * until it exits, and `killAllSync` ends the stragglers when the bench itself exits or is
 * interrupted, so no server outlives a run, also on failure.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  /** The last lines the process printed (stdout and stderr), for error messages. */
  output(): string;
  /** Resolves once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  hasExited(): boolean;
  /** SIGTERM to the process group, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

const running = new Set<ManagedProcess>();
const cleanups = new Set<() => void>();

/** Registers a synchronous cleanup (e.g. killing Chrome) for an abnormal exit. */
export function onAbnormalExit(cleanup: () => void): () => void {
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals) {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // Already gone.
    }
  }
}

export interface StartOptions {
  name: string;
  command: string;
  args: string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Echo the process's output live, prefixed with its name. */
  echo?: boolean;
}

export function startProcess(options: StartOptions): ManagedProcess {
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const lines: string[] = [];
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      lines.push(line);
      if (lines.length > 80) lines.shift();
      if (options.echo) console.log(`  [${options.name}] ${line}`);
    }
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);

  let hasExited = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('error', (error) => {
      lines.push(`spawn error: ${error.message}`);
      hasExited = true;
      resolve({ code: null, signal: null });
    });
    child.once('exit', (code, signal) => {
      hasExited = true;
      resolve({ code, signal });
    });
  });

  const managed: ManagedProcess = {
    name: options.name,
    child,
    output: () => lines.join('\n'),
    exited,
    hasExited: () => hasExited,
    async stop(graceMs = 10_000) {
      if (!hasExited) {
        signalGroup(child, 'SIGTERM');
        const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      // The group may still hold a grandchild that ignored SIGTERM.
      signalGroup(child, 'SIGKILL');
      running.delete(managed);
    },
  };
  running.add(managed);
  void exited.then(() => {
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, 0);
      } catch {
        running.delete(managed);
      }
    }
  });
  return managed;
}

/** SIGKILLs every registered process group and runs the cleanups; safe inside process.on('exit'). */
export function killAllSync() {
  for (const managed of running) signalGroup(managed.child, 'SIGKILL');
  running.clear();
  for (const cleanup of cleanups) {
    try {
      cleanup();
    } catch {
      // Best effort.
    }
  }
  cleanups.clear();
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('No free port'))));
    });
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `url` until it answers 200 (or the process dies, or `timeoutMs` passes). */
export async function waitForHttp(
  url: string,
  managed: ManagedProcess,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastProblem = 'no answer yet';
  while (Date.now() < deadline) {
    if (managed.hasExited()) {
      const { code, signal } = await managed.exited;
      throw new Error(
        `${managed.name} exited (code ${code}, signal ${signal}) before ${url} answered.\n` +
          `Its last output:\n${managed.output()}`,
      );
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
      lastProblem = `HTTP ${response.status}`;
    } catch (error) {
      lastProblem = error instanceof Error ? error.message : String(error);
    }
    await sleep(200);
  }
  throw new Error(
    `${managed.name} did not answer ${url} within ${timeoutMs / 1000} s (${lastProblem}).\n` +
      `Its last output:\n${managed.output()}`,
  );
}
