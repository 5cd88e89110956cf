import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../test/helpers/test-database.ts';
import type { DatabaseHandle } from '../db/client.ts';
import { databaseErrorCode, isUniqueViolation } from './database-errors.ts';

let database: DatabaseHandle;
beforeAll(async () => {
  database = await openTestDatabase();
  await database.db.execute(sql`create table unique_probe (id text primary key)`);
});
afterAll(() => database.close());

describe('isUniqueViolation', () => {
  it('finds the code on the error or on the driver error drizzle wraps in `cause`', () => {
    expect(isUniqueViolation({ code: '23505' })).toBe(true);
    expect(
      isUniqueViolation(Object.assign(new Error('Failed query'), { cause: { code: '23505' } })),
    ).toBe(true);
    expect(isUniqueViolation({ code: '23503' })).toBe(false);
    expect(isUniqueViolation(new Error('plain'))).toBe(false);
    expect(isUniqueViolation(undefined)).toBe(false);
    expect(databaseErrorCode({ code: 'ECONNRESET', cause: { code: '57P01' } })).toBe('57P01');
  });

  // On PostgreSQL (npm run test:pg) the code sits only in `cause`: the bug this fixes.
  it('recognises a real duplicate key from this database driver', async () => {
    await database.db.execute(sql`insert into unique_probe (id) values ('a')`);
    const error = await database.db.execute(sql`insert into unique_probe (id) values ('a')`).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(isUniqueViolation(error)).toBe(true);
  });
});
