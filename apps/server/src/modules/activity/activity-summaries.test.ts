import fs from 'node:fs';
import path from 'node:path';
import { activityCategories } from '@farmcam/contract';
import { describe, expect, it } from 'vitest';
import {
  activityActions,
  categoryOf,
  categorySelection,
  hiddenActions,
  isKnownAction,
  summaryOf,
} from './activity-summaries.ts';

const sourceRoot = path.resolve(import.meta.dirname, '../..');

/** Every .ts file of src except tests, walked once. */
function sourceFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/**
 * The action codes written anywhere in the code base: string literals shaped like one
 * (`'camera.rename'`, `'billing.payment_failed'`…), outside this module.
 */
function actionCodesInSource(): string[] {
  const pattern =
    /['`]((?:auth|camera|billing|livestream|member|activation|staff)\.[a-z0-9_.-]+)['`]/g;
  const codes = new Set<string>();
  for (const file of sourceFiles(sourceRoot)) {
    if (file.endsWith(path.join('activity', 'activity-summaries.ts'))) continue;
    for (const match of fs.readFileSync(file, 'utf8').matchAll(pattern)) codes.add(match[1]!);
  }
  return [...codes].sort();
}

describe('activity summaries', () => {
  it('knows every action code the code base writes', () => {
    const codes = actionCodesInSource();
    // The scan finds the writers (a sanity check that it still reads the code base).
    expect(codes).toEqual(
      expect.arrayContaining(['camera.rename', 'billing.plan_changed', 'auth.sign-in']),
    );
    expect(codes.filter((code) => !isKnownAction(code))).toEqual([]);
  });

  it('covers the team codes the members module writes', () => {
    for (const code of [
      'auth.sign-in',
      'member.invited',
      'member.updated',
      'member.removed',
      'member.accepted',
    ]) {
      expect(isKnownAction(code)).toBe(true);
      expect(categoryOf(code)).toBe(code === 'auth.sign-in' ? 'sign-in' : 'team');
    }
  });

  it('writes a sentence for every known code, with details and without', () => {
    for (const action of Object.keys(activityActions)) {
      for (const details of [{}, null, 'not an object', { from: 42, to: [], amount: 'x' }]) {
        const summary = summaryOf(action, details);
        expect(summary, action).toMatch(/^[A-Z"£€]/);
        expect(summary, action).not.toMatch(/undefined|null|NaN|\[object/);
      }
    }
  });

  it('says what happened in words a farmer reads', () => {
    expect(summaryOf('camera.rename', { from: 'Gate', to: 'Top gate' })).toBe(
      'Renamed "Gate" to "Top gate"',
    );
    expect(summaryOf('camera.rename', { from: null, to: 'Barn' })).toBe('Named the camera "Barn"');
    expect(
      summaryOf('billing.plan_changed', {
        fromPlan: 'Standard Streaming (monthly)',
        toPlan: 'Heavy Streaming (monthly)',
        charged: 1250,
        currency: 'gbp',
      }),
    ).toBe(
      'Changed the plan from Standard Streaming (monthly) to Heavy Streaming (monthly) (£12.50 charged for the rest of the month)',
    );
    expect(
      summaryOf('billing.pause_scheduled', { startsOn: '2026-04-01', resumesOn: '2026-06-01' }),
    ).toBe('Paused the plan from 1 April 2026, restarting on 1 June 2026');
    expect(summaryOf('billing.card_added', { brand: 'visa', last4: '4242' })).toBe(
      'Visa card ending 4242 was added',
    );
    expect(
      summaryOf('billing.payment_failed', {
        amount: 3500,
        currency: 'gbp',
        invoiceNumber: 'FC-0007',
        reason: 'Your card was declined. Use another card and try again.',
      }),
    ).toBe(
      'Payment of £35.00 failed for invoice FC-0007: Your card was declined. Use another card and try again.',
    );
    expect(
      summaryOf('billing.payment_succeeded', {
        amount: 3500,
        currency: 'gbp',
        invoiceNumber: 'FC-1',
      }),
    ).toBe('Payment of £35.00 received for invoice FC-1');
    expect(summaryOf('member.invited', { email: 'vet@example.com', role: 'viewer' })).toBe(
      'Invited vet@example.com as Viewer',
    );
    // The details modules/team records (team-kernel.ts accessDetails).
    expect(
      summaryOf('member.updated', {
        email: 'contractor@example.com',
        role: 'manager',
        allCameras: false,
        iccids: ['8944110000001010000'],
        lastDay: '2026-06-30',
      }),
    ).toBe(
      'Changed the access of contractor@example.com to Manager for 1 camera until 30 June 2026',
    );
    expect(
      summaryOf('member.invited', {
        email: 'herd@example.com',
        role: 'manager',
        allCameras: true,
        iccids: [],
        lastDay: null,
      }),
    ).toBe('Invited herd@example.com as Manager');
    expect(summaryOf('staff.impersonation.start', {})).toBe(
      'Farmcam staff opened your portal to help',
    );
  });

  it('never fails on a code it does not know', () => {
    expect(summaryOf('camera.teleported', { to: 'Mars' })).toBe(
      'Made a change (camera.teleported)',
    );
    expect(categoryOf('camera.teleported')).toBe('cameras');
    expect(categoryOf('member.promoted')).toBe('team');
    expect(categoryOf('weather.changed')).toBe('cameras');
  });

  it('files every known code under a category the contract knows, and selects by it', () => {
    for (const action of Object.keys(activityActions)) {
      expect(activityCategories).toContain(categoryOf(action));
    }
    const cameras = categorySelection('cameras');
    expect(cameras.actions).toContain('camera.rename');
    expect(cameras.otherPrefixes.isIncluded).toBe(true);
    expect(categorySelection('team').prefixes).toEqual(['member']);
    expect(hiddenActions).toContain('activation.pricing_table_shown');
    expect(hiddenActions).not.toContain('camera.rename');
  });
});
