/**
 * Starting and stopping the two servers the bench measures, both with tsx as child processes on
 * free ports: the portal (on a fresh temporary PGlite folder, so demo data is seeded) and the bare
 * Fastify hello world used as the baseline.
 */
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  freePort,
  onAbnormalExit,
  startProcess,
  waitForHttp,
  type ManagedProcess,
} from './processes.ts';

export interface RunningServer {
  baseUrl: string;
  process: ManagedProcess;
  stop(): Promise<void>;
}

function tsxBin(rootDir: string) {
  return path.join(rootDir, 'node_modules', '.bin', 'tsx');
}

export interface PortalOptions {
  /** Fills the fresh data directory before the portal opens it (PGlite is single-process). */
  prepareDataDir?: (dataDir: string) => Promise<void>;
  /** Extra environment for the portal, e.g. PLANS_CACHE_SECONDS. */
  env?: Record<string, string>;
  /** A PostgreSQL database (DATABASE_URL) instead of a fresh PGlite folder. */
  databaseUrl?: string;
}

export async function startPortal(
  rootDir: string,
  options: PortalOptions = {},
): Promise<RunningServer> {
  const tempDir = await fs.mkdtemp(path.join(os.tmpdir(), 'farmcam-bench-'));
  const forgetTempDir = onAbnormalExit(() =>
    fsSync.rmSync(tempDir, { recursive: true, force: true }),
  );
  if (options.prepareDataDir) {
    try {
      await options.prepareDataDir(path.join(tempDir, 'data'));
    } catch (error) {
      await fs.rm(tempDir, { recursive: true, force: true });
      forgetTempDir();
      throw error;
    }
  }
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // Not production: the bench signs in through the outbox and needs demo data, which production
    // refuses (docs/decisions/061). No request path of the server depends on NODE_ENV.
    NODE_ENV: 'development',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: baseUrl,
    DATA_DIR: path.join(tempDir, 'data'),
    LOG_LEVEL: 'warn',
    // Production's JSON lines, not development's readable ones (decision 106).
    LOG_FORMAT: 'json',
    MAIL: 'outbox',
    ...options.env,
  };
  // A DATABASE_URL in the caller's environment would skip the fresh seeded database.
  delete env.DATABASE_URL;
  delete env.DEMO_DATA;
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  Object.assign(env, options.env);
  const child = startProcess({
    name: 'portal',
    command: tsxBin(rootDir),
    args: ['apps/server/src/server.ts'],
    cwd: rootDir,
    env,
  });
  const stop = async () => {
    await child.stop(15_000);
    await fs.rm(tempDir, { recursive: true, force: true });
    forgetTempDir();
  };
  try {
    await waitForHttp(`${baseUrl}/api/healthz`, child, 120_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl, process: child, stop };
}

export async function startHello(rootDir: string): Promise<RunningServer> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = startProcess({
    name: 'hello',
    command: tsxBin(rootDir),
    args: ['bench/hello-server.ts'],
    cwd: rootDir,
    env: { ...process.env, NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(port) },
  });
  const stop = () => child.stop(5_000);
  try {
    await waitForHttp(`${baseUrl}/`, child, 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl, process: child, stop };
}
