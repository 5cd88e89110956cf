/**
 * A fresh PostgreSQL database for a scenario, on the server at BENCH_POSTGRES_URL
 * (postgres://postgres@127.0.0.1:5432): created as bench_<purpose>_<pid>, dropped afterwards
 * (forcing out connections left behind), also when the work throws. No server there is a note,
 * not a failure: the work is skipped and null returned.
 */
import pg from 'pg';

export const postgresServerUrl =
  process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432';

export async function withBenchDatabase<Result>(
  purpose: string,
  log: (message: string) => void,
  work: (url: string) => Promise<Result>,
): Promise<Result | null> {
  const databaseName = `bench_${purpose}_${process.pid}`;
  const admin = new pg.Client({ connectionString: `${postgresServerUrl}/postgres` });
  try {
    await admin.connect();
  } catch (error) {
    log(`no PostgreSQL at ${postgresServerUrl} (${String(error)}): skipped`);
    return null;
  }
  try {
    await admin.query(`drop database if exists ${databaseName} with (force)`);
    await admin.query(`create database ${databaseName}`);
    return await work(`${postgresServerUrl}/${databaseName}`);
  } finally {
    await admin.query(`drop database if exists ${databaseName} with (force)`).catch(() => {});
    await admin.end();
  }
}
