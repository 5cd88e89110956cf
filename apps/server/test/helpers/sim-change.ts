import { eq } from 'drizzle-orm';
import { sims } from '../../src/db/schema.ts';
import type { TestContext } from './test-app.ts';

type SimChange = Partial<Pick<typeof sims.$inferInsert, 'state' | 'isBarred'>>;

/**
 * Runs `work` while one SIM has other facts (terminated, barred…), then puts them back, so a test
 * on the shared demo data leaves it as it found it even when it fails.
 */
export async function withSimChanged<Result>(
  context: TestContext,
  iccid: string,
  change: SimChange,
  work: () => Promise<Result>,
): Promise<Result> {
  const [before] = await context.database.db
    .select({ state: sims.state, isBarred: sims.isBarred })
    .from(sims)
    .where(eq(sims.iccid, iccid));
  if (!before) throw new Error(`No SIM ${iccid}`);
  await context.database.db.update(sims).set(change).where(eq(sims.iccid, iccid));
  try {
    return await work();
  } finally {
    await context.database.db.update(sims).set(before).where(eq(sims.iccid, iccid));
  }
}
