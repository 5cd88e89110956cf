import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Executor } from './database.ts';
import { appSettings } from './schema.ts';

/**
 * A signing secret made once per database and kept in app_settings, so every process (and a
 * restart) accepts what the others signed. The first caller's random value wins a race.
 */
export async function ensureDatabaseSecret(executor: Executor, key: string): Promise<string> {
  const [existing] = await executor.select().from(appSettings).where(eq(appSettings.key, key));
  if (existing) return String(existing.value);
  await executor
    .insert(appSettings)
    .values({ key, value: randomBytes(32).toString('base64url') })
    .onConflictDoNothing();
  const [row] = await executor.select().from(appSettings).where(eq(appSettings.key, key));
  return String(row!.value);
}
