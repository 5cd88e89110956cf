/**
 * Why a public livestream shows nothing, as livestream-url and the embed page answer it (decision
 * 120): a state, a sentence with the camera's name and the next clip's time, Retry-After unless
 * final; nothing about the camera for a page that has not proved it may play a link; no billing
 * words for anyone. Calving pen (a demo Heavy camera) gets a livestream with no clip yet.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, nextIp, type TestContext } from '../../../test/helpers/test-app.ts';
import { demoIccid, seedDemoData } from '../../seed/demo.ts';
import {
  clips,
  dataCaps,
  livestreamLinks,
  livestreams,
  rateLimits,
  sims,
  subscriptions,
} from '../../db/schema.ts';
import { newLinkToken } from '../livestream/public-links.rules.ts';
import { publicNotice, whenInWords } from './public-notice.ts';

let context: TestContext;
let publicId: string;
let livestreamId: string;
const calvingPen = demoIccid(104); // Heavy yearly, active
const browser = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/156',
  'accept-language': 'en-GB',
};
/** 2026-03-10 is a Tuesday; the schedule records at noon and 18:00 UK time every day. */
const start = '2026-03-10T09:30:00Z';

beforeAll(async () => {
  context = await createTestContext();
  await seedDemoData(context.database.db, context.clock);
  // The demo gives Calving pen a livestream (seed/demo-links.ts): no clips, a twice-a-day schedule.
  const [row] = await context.database.db
    .update(livestreams)
    .set({
      isActive: true,
      configuredAt: context.clock.now(),
      scheduleHours: [12, 18],
      scheduleDays: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'],
    })
    .where(eq(livestreams.simIccid, calvingPen))
    .returning();
  livestreamId = row!.id;
  publicId = row!.publicId;
  await context.database.db.delete(clips).where(eq(clips.livestreamId, livestreamId));
});
afterAll(() => context.close());

beforeEach(async () => {
  context.clock.set(start);
  await context.database.db.delete(rateLimits);
});

const ask = (id = publicId, query = '', headers: Record<string, string> = {}) =>
  context.app.inject({
    method: 'GET',
    url: `/api/livestreaming/livestream-url?camera_id=${id}${query}`,
    remoteAddress: nextIp(),
    headers: { ...browser, ...headers },
  });

async function withSubscription(
  change: Partial<typeof subscriptions.$inferInsert>,
  run: () => Promise<void>,
) {
  const [before] = await context.database.db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.simIccid, calvingPen));
  await context.database.db
    .update(subscriptions)
    .set(change)
    .where(eq(subscriptions.simIccid, calvingPen));
  try {
    await run();
  } finally {
    await context.database.db
      .update(subscriptions)
      .set({
        status: before!.status,
        pauseStartsOn: before!.pauseStartsOn,
        pauseResumesOn: before!.pauseResumesOn,
      })
      .where(eq(subscriptions.simIccid, calvingPen));
  }
}

describe('the sentences', () => {
  it('say when in UK time: today, tomorrow, or the day', () => {
    const now = new Date('2026-03-10T09:30:00Z');
    expect(whenInWords(new Date('2026-03-10T12:00:00Z'), now)).toBe('12:00 today');
    expect(whenInWords(new Date('2026-03-11T07:00:00Z'), now)).toBe('07:00 tomorrow');
    expect(whenInWords(new Date('2026-03-13T12:00:00Z'), now)).toBe('12:00 on Fri 13 Mar');
    // British Summer Time: 11:00 UTC is noon in London.
    expect(whenInWords(new Date('2026-06-01T11:00:00Z'), new Date('2026-06-01T08:00:00Z'))).toBe(
      '12:00 today',
    );
  });

  it('never name a camera they were not given, and never speak of money', () => {
    const now = new Date(start);
    for (const state of ['off', 'paused', 'data-paused', 'terminated', 'unavailable'] as const) {
      const anonymous = publicNotice(state, { cameraName: null }, now).sentence;
      expect(anonymous).not.toMatch(/null|undefined/);
      expect(anonymous).not.toMatch(/pay|unpaid|overdue|invoice|data allowance|plan/i);
    }
    expect(publicNotice('not-allowed', { cameraName: 'Calving pen' }, now).sentence).toBe(
      'This livestream is not allowed on this site.',
    );
  });
});

describe('livestream-url says why there is nothing to play', () => {
  it('no clip yet: the camera, when the first is due, and to ask again in a minute', async () => {
    const response = await ask();
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toContain('text/plain');
    expect(response.headers['x-livestream-state']).toBe('no-clip');
    expect(response.body).toBe(
      'Calving pen has no clip yet. The first one is due at 12:00 today (UK time) and plays here by itself.',
    );
    expect(response.headers['x-camera-name']).toBe('Calving%20pen');
    expect(response.headers['x-next-clip-at']).toBe('2026-03-10T12:00:00.000Z');
    // Asked again every minute: a clip may come sooner, a revoked link must stop within one.
    expect(response.headers['retry-after']).toBe('60');
    // A player on the farm's website may read why.
    expect(response.headers['access-control-expose-headers']).toContain('x-next-clip-at');
    expect(response.headers['access-control-expose-headers']).toContain('retry-after');

    // Within the scheduled hour: due now (the scheduler catches the slot up within a minute).
    context.clock.set('2026-03-10T12:10:30Z');
    expect((await ask()).body).toContain('due at 12:11 today (UK time)');
    // After the evening slot, the next is tomorrow's noon.
    context.clock.set('2026-03-10T19:00:00Z');
    expect((await ask()).body).toContain('due at 12:00 tomorrow (UK time)');
  });

  it('paused by the farm: until the day it resumes, asked again every five minutes', async () => {
    await withSubscription(
      { status: 'paused', pauseStartsOn: '2026-03-01', pauseResumesOn: '2026-04-01' },
      async () => {
        const response = await ask();
        expect(response.statusCode).toBe(404);
        expect(response.headers['x-livestream-state']).toBe('paused');
        expect(response.body).toBe(
          'The farm has paused Calving pen until Wed 1 Apr. Clips play here again by themselves after that.',
        );
        expect(response.headers['retry-after']).toBe('300');
      },
    );
  });

  it('data paused at the allowance: resting until the month turns, no word of data or plans', async () => {
    await context.database.db
      .insert(dataCaps)
      .values({ simIccid: calvingPen, month: '2026-03', cappedAt: context.clock.now() });
    try {
      const response = await ask();
      expect(response.headers['x-livestream-state']).toBe('data-paused');
      expect(response.body).toBe(
        'Calving pen is resting until Wed 1 Apr. Clips play here again by themselves after that.',
      );
      // Resumed by the farm for the rest of the month: back to its schedule.
      await context.database.db
        .update(dataCaps)
        .set({ resumedAt: context.clock.now() })
        .where(and(eq(dataCaps.simIccid, calvingPen), eq(dataCaps.month, '2026-03')));
      expect((await ask()).headers['x-livestream-state']).toBe('no-clip');
    } finally {
      await context.database.db.delete(dataCaps).where(eq(dataCaps.simIccid, calvingPen));
    }
  });

  it('unpaid: "not available right now", never why', async () => {
    await withSubscription({ status: 'overdue' }, async () => {
      const response = await ask();
      expect(response.headers['x-livestream-state']).toBe('unavailable');
      expect(response.body).toBe(
        'Calving pen’s livestream is not available right now. This page tries again by itself.',
      );
      expect(response.body).not.toMatch(/overdue|unpaid|pay/i);
      expect(response.headers['retry-after']).toBe('300');
    });
  });

  it('switched off for good: final, so the player is not told to ask again', async () => {
    await context.database.db
      .update(sims)
      .set({ state: 'terminated' })
      .where(eq(sims.iccid, calvingPen));
    try {
      const response = await ask();
      expect(response.headers['x-livestream-state']).toBe('terminated');
      expect(response.body).toBe(
        'Calving pen has been switched off for good, so this livestream has ended.',
      );
      expect(response.headers['retry-after']).toBeUndefined();
    } finally {
      await context.database.db
        .update(sims)
        .set({ state: 'active' })
        .where(eq(sims.iccid, calvingPen));
    }
  });

  it('a clip plays once recorded', async () => {
    const [clip] = await context.database.db
      .insert(clips)
      .values({
        livestreamId,
        storageKey: `livestreams/${livestreamId}/noon.mp4`,
        status: 'ready',
        durationSeconds: 15,
        recordedAt: context.clock.now(),
      })
      .returning();
    try {
      const response = await ask();
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-livestream-state']).toBeUndefined();
    } finally {
      await context.database.db.delete(clips).where(eq(clips.id, clip!.id));
    }
  });
});

describe('a public link tells only a viewer it may play for', () => {
  const site = 'www.calving-pen.example';
  let token: string;

  beforeAll(async () => {
    token = newLinkToken();
    await context.database.db.insert(livestreamLinks).values({
      livestreamId,
      token,
      kind: 'embed',
      label: 'Farm website',
      allowedDomains: [site],
    });
  });

  /** The embed page framed on `on`, and the player's first request with its page-load token. */
  async function playOn(on: string) {
    const ip = nextIp();
    const page = await context.app.inject({
      method: 'GET',
      url: `/embed/${token}`,
      remoteAddress: ip,
      headers: { ...browser, referer: `https://${on}/webcam`, 'sec-fetch-dest': 'iframe' },
    });
    const load = /data-page-load="([^"]+)"/.exec(page.body)?.[1];
    const answer = await context.app.inject({
      method: 'GET',
      url: `/api/livestreaming/livestream-url?camera_id=${token}${load ? `&load=${encodeURIComponent(load)}` : ''}`,
      remoteAddress: ip,
      headers: browser,
    });
    return { page, answer, ip };
  }

  it('on its listed site: why, with the camera; elsewhere: not allowed, nothing more', async () => {
    await withSubscription(
      { status: 'paused', pauseStartsOn: '2026-03-01', pauseResumesOn: '2026-04-01' },
      async () => {
        const listed = await playOn(site);
        expect(listed.answer.headers['x-livestream-state']).toBe('paused');
        expect(listed.answer.body).toContain('Calving pen');
        expect(listed.answer.headers['cache-control']).toBe('no-store');
        expect(listed.answer.headers['access-control-allow-origin']).toBeUndefined();

        const copycat = await playOn('copycat.example');
        expect(copycat.page.body).toContain('This livestream is not allowed on this site.');
        expect(copycat.page.body).not.toContain('Calving pen');
        // No proof at all: the same refusal, whatever the camera's state.
        const bare = await ask(token);
        expect(bare.statusCode).toBe(403);
        expect(bare.headers['x-livestream-state']).toBe('not-allowed');
        expect(bare.body).toBe('This livestream is not allowed on this site.');
        expect(bare.headers['x-camera-name']).toBeUndefined();
        expect(bare.headers['cache-control']).toBe('no-store');
      },
    );
  });

  it('a page waiting for its first clip keeps its proof: each answer renews it', async () => {
    const first = await playOn(site);
    expect(first.answer.headers['x-livestream-state']).toBe('no-clip');
    const renewed = first.answer.headers['x-page-load'] as string;
    expect(renewed).toBeTruthy();
    // The minute check with the renewed token: still why, with the camera, not "not allowed".
    const check = await context.app.inject({
      method: 'GET',
      url: `/api/livestreaming/livestream-url?camera_id=${token}&refresh=1&load=${encodeURIComponent(renewed)}`,
      remoteAddress: first.ip,
      headers: browser,
    });
    expect(check.headers['x-livestream-state']).toBe('no-clip');
    expect(check.body).toContain('Calving pen has no clip yet.');
    expect(check.headers['x-page-load']).toBeTruthy();
  });

  it('revoked: the listed site is told which camera; another site is not', async () => {
    await context.database.db
      .update(livestreamLinks)
      .set({ revokedAt: context.clock.now() })
      .where(eq(livestreamLinks.token, token));
    const listed = await playOn(site);
    expect(listed.page.body).toContain(
      'This link to Calving pen has been switched off. Ask the farm for a new one.',
    );
    const copycat = await playOn('copycat.example');
    expect(copycat.page.body).toContain('This link has been switched off.');
    expect(copycat.page.body).not.toContain('Calving pen');
  });
});
