import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog } from '../../db/schema.ts';
import { notFound } from '../../errors.ts';
import { requireCustomerScope } from '../auth/auth.plugin.ts';
import { createActors, expectOwnerOnly, type Actors } from '../../../test/helpers/authorization.ts';
import {
  bearer,
  createTestContext,
  insertStaff,
  signInStaff,
  type TestContext,
} from '../../../test/helpers/test-app.ts';

let context: TestContext;
let actors: Actors;
beforeAll(async () => {
  // A probe route that checks ownership the way every customer endpoint does.
  context = await createTestContext({}, (app) => {
    app.get('/api/test-probe/customers/:customerId', async (request) => {
      const { customerId } = requireCustomerScope(request);
      if ((request.params as { customerId: string }).customerId !== customerId) {
        throw notFound('Unknown customer');
      }
      return { ok: true };
    });
  });
  actors = await createActors(context, 'owner@example.com');
});
afterAll(() => context.close());

describe('staff area', () => {
  it('lists and searches customers for staff only', async () => {
    const response = await context.app.inject({
      method: 'GET',
      url: '/api/staff/customers?q=owner',
      headers: actors.headers.adminUnscoped,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json<{ customers: { email: string }[] }>().customers).toEqual([
      expect.objectContaining({ email: 'owner@example.com', cameraCount: 0 }),
    ]);
    for (const headers of [actors.headers.owner, actors.headers.team, actors.headers.admin]) {
      const refused = await context.app.inject({
        method: 'GET',
        url: '/api/staff/customers',
        headers,
      });
      expect(refused.statusCode).toBe(403);
    }
    const anonymous = await context.app.inject({ method: 'GET', url: '/api/staff/customers' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('escapes LIKE wildcards in the search', async () => {
    const response = await context.app.inject({
      method: 'GET',
      url: '/api/staff/customers?q=%25',
      headers: actors.headers.teamUnscoped,
    });
    expect(response.json<{ customers: unknown[] }>().customers).toEqual([]);
  });

  it('opens a customer portal as an audited, scoped, time-limited session', async () => {
    await insertStaff(context, 'helper@example.com', 'team');
    const staffToken = await signInStaff(context, 'helper@example.com');
    const response = await context.app.inject({
      method: 'POST',
      url: `/api/staff/customers/${actors.ownerId}/impersonate`,
      headers: bearer(staffToken),
    });
    expect(response.statusCode).toBe(200);
    const { token, expiresAt } = response.json<{ token: string; expiresAt: string }>();
    expect(new Date(expiresAt).getTime() - context.clock.now().getTime()).toBe(30 * 60 * 1000);

    const userData = await context.app.inject({
      method: 'GET',
      url: '/api/auth/user-data',
      headers: bearer(token),
    });
    expect(userData.json()).toMatchObject({
      data: {
        email: 'owner@example.com',
        role: 'team',
        customerId: actors.ownerId,
        impersonation: {
          staffEmail: 'helper@example.com',
          staffRole: 'team',
          customerEmail: 'owner@example.com',
        },
      },
    });
    const audits = await context.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'staff.impersonation.start'));
    expect(audits.some((entry) => entry.onBehalfOfCustomerId === actors.ownerId)).toBe(true);

    // A portal session cannot open another portal.
    const nested = await context.app.inject({
      method: 'POST',
      url: `/api/staff/customers/${actors.otherCustomerId}/impersonate`,
      headers: bearer(token),
    });
    expect(nested.statusCode).toBe(403);

    context.clock.advance(31 * 60 * 1000);
    const expired = await context.app.inject({
      method: 'GET',
      url: '/api/auth/user-data',
      headers: bearer(token),
    });
    expect(expired.statusCode).toBe(401);
  });

  it('ends the portal sessions when the staff session logs out', async () => {
    await insertStaff(context, 'leaver@example.com', 'admin');
    const staffToken = await signInStaff(context, 'leaver@example.com');
    const portal = await context.app.inject({
      method: 'POST',
      url: `/api/staff/customers/${actors.ownerId}/impersonate`,
      headers: bearer(staffToken),
    });
    const portalToken = portal.json<{ token: string }>().token;
    await context.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: bearer(staffToken),
    });
    const after = await context.app.inject({
      method: 'GET',
      url: '/api/auth/user-data',
      headers: bearer(portalToken),
    });
    expect(after.statusCode).toBe(401);
  });

  it('answers 404 for an unknown customer and 400 for a malformed id', async () => {
    const unknown = await context.app.inject({
      method: 'POST',
      url: '/api/staff/customers/00000000-0000-4000-8000-000000000000/impersonate',
      headers: actors.headers.adminUnscoped,
    });
    expect(unknown.statusCode).toBe(404);
    const malformed = await context.app.inject({
      method: 'POST',
      url: '/api/staff/customers/nope/impersonate',
      headers: actors.headers.adminUnscoped,
    });
    expect(malformed.statusCode).toBe(400);
  });
});

describe('authorization helper', () => {
  it('lets the owner and staff in the owner portal through, and no one else', async () => {
    const fresh = await createActors(context);
    await expectOwnerOnly(context, fresh, () => ({
      method: 'GET',
      url: `/api/test-probe/customers/${fresh.ownerId}`,
    }));
  });
});
