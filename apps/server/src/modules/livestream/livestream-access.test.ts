/**
 * The checks and the audited change every customer call of the livestream service shares
 * (PGlite, or PostgreSQL with TEST_DATABASE_URL).
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../db/client.ts';
import { auditLog, customers } from '../../db/schema.ts';
import { ManualClock } from '../../lib/clock.ts';
import { demoIccid, seedDemoData } from '../../seed/demo.ts';
import { openTestDatabase } from '../../../test/helpers/test-database.ts';
import type { Principal } from '../auth/principal.ts';
import { changeLivestream, requireEligibleCamera, requireLivestream } from './livestream-access.ts';
import { livestreamRepository } from './livestream.repository.ts';

const farmyard = demoIccid(103); // demo@example.com's Heavy monthly camera, active
const topGate = demoIccid(101); // demo@example.com's Light camera
const stableYard = demoIccid(201); // second@example.com's camera

describe('livestream access', () => {
  let database: DatabaseHandle;
  const clock = new ManualClock();
  let customerId: string;

  beforeAll(async () => {
    database = await openTestDatabase();
    await seedDemoData(database.db, clock);
    const [customer] = await database.db
      .select()
      .from(customers)
      .where(eq(customers.email, 'demo@example.com'));
    customerId = customer!.id;
  });

  afterAll(async () => {
    await database?.close();
  });

  it('refuses another customer’s camera (404), a camera that may not livestream (422), and a camera not set up (409)', async () => {
    const deps = { db: database.db, clock };
    await expect(requireEligibleCamera(deps, customerId, stableYard)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(requireEligibleCamera(deps, customerId, topGate)).rejects.toMatchObject({
      code: 'UNPROCESSABLE',
    });
    expect((await requireEligibleCamera(deps, customerId, farmyard)).iccid).toBe(farmyard);
    await expect(requireLivestream(database.db, farmyard)).rejects.toMatchObject({
      code: 'CONFLICT',
    });
  });

  it('changes the livestream and records who did it, naming the camera’s SIM', async () => {
    const { row } = await livestreamRepository.ensureForSim(database.db, {
      iccid: farmyard,
      publicId: 'ls_access_test',
      cameraHost: '10.0.0.9',
      cameraPort: 554,
      now: clock.now(),
    });
    // Staff inside the customer's portal, as the session gives them.
    const staffPrincipal = {
      staffId: 'staff-1',
      staffEmail: 'staff-1@farmcam.example',
      customerId,
      access: null,
    } as unknown as Principal;
    const scope = { customerId, principal: staffPrincipal, ip: '10.1.2.3' };

    const changed = await changeLivestream(
      database.db,
      scope,
      await requireLivestream(database.db, farmyard),
      { durationSeconds: 30, updatedAt: clock.now() },
      { action: 'livestream.test-change', details: { durationSeconds: 30 } },
    );

    expect(changed).toMatchObject({ id: row.id, durationSeconds: 30 });
    const entries = await database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'livestream.test-change'));
    expect(entries).toEqual([
      expect.objectContaining({
        actorType: 'staff',
        actorId: 'staff-1',
        actorEmail: 'staff-1@farmcam.example',
        onBehalfOfCustomerId: customerId,
        accountId: customerId,
        subjectType: 'sim',
        subjectId: farmyard,
        details: { durationSeconds: 30 },
        ip: '10.1.2.3',
      }),
    ]);
  });
});
