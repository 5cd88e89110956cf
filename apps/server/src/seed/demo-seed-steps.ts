/**
 * What the demo's later parts (watch, links, timelapse) share: each is seeded once, on its own
 * marker in app_settings, so a database seeded before the part existed gets it too and a change
 * a person made to it afterwards is never put back; and each works on one of the owner's cameras.
 */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { appSettings, customers, sims } from '../db/schema.ts';

/** True once the part with this marker has been seeded. */
export async function isPartSeeded(executor: Executor, marker: string): Promise<boolean> {
  const [row] = await executor.select().from(appSettings).where(eq(appSettings.key, marker));
  return row !== undefined;
}

/** Records that the part with this marker has been seeded. */
export async function markPartSeeded(executor: Executor, marker: string): Promise<void> {
  await executor.insert(appSettings).values({ key: marker, value: 1 }).onConflictDoNothing();
}

/** The SIM `iccid` if `ownerEmail` owns it (its state decides what the part does with it). */
export async function ownersCamera(
  executor: Executor,
  ownerEmail: string,
  iccid: string,
): Promise<{ iccid: string; state: string } | undefined> {
  const [camera] = await executor
    .select({ iccid: sims.iccid, state: sims.state })
    .from(sims)
    .innerJoin(customers, eq(customers.id, sims.customerId))
    .where(and(eq(sims.iccid, iccid), eq(customers.email, ownerEmail)));
  return camera;
}
