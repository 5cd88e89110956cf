import { afterAll } from 'vitest';

/**
 * Each test file starts with no kept-alive connections (decision 150). The server's test files
 * share their worker's process (`isolate: false`), and with it Node's fetch connection pool: a
 * connection kept alive to a server of an earlier file, since stopped, was handed out again when
 * a later file's server happened to get the same port, and its first request failed with
 * ECONNRESET (database-outage.process.test.ts, once in CI). After each file the pool is closed
 * and replaced by a fresh one of the same kind.
 */
const globalDispatcher = Symbol.for('undici.globalDispatcher.1');

interface Dispatcher {
  close(): Promise<void>;
}

afterAll(async () => {
  const holder = globalThis as unknown as Record<symbol, Dispatcher | undefined>;
  const pool = holder[globalDispatcher];
  if (!pool) return;
  const Pool = pool.constructor as new () => Dispatcher;
  holder[globalDispatcher] = new Pool();
  await pool.close().catch(() => undefined);
});
