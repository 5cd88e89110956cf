import { describe, expect, it } from 'vitest';
import { eligibilityOf } from './eligibility.ts';
import type { CameraPlanRow } from './livestream.repository.ts';

describe('livestreaming eligibility of a stored camera', () => {
  it('derives the SubStatus from the stored subscription on the business day', () => {
    const row: CameraPlanRow = {
      iccid: '8944110000000001039',
      customer_id: 'c',
      nickname: 'Farmyard',
      state: 'active',
      is_barred: false,
      subscription_status: 'active',
      pause_starts_on: null,
      pause_resumes_on: null,
      product_name: 'Heavy Streaming',
      data_allowance_gb: 50,
      livestream_id: null,
    };
    const now = new Date('2026-03-10T12:00:00Z');
    expect(eligibilityOf(row, now).isEligible).toBe(true);
    // A pause booked for next month: SubStatus 'pause scheduled', not 'active'.
    expect(
      eligibilityOf({ ...row, pause_starts_on: '2026-04-01', pause_resumes_on: '2026-05-01' }, now)
        .isEligible,
    ).toBe(false);
    // A pause that ended is history.
    expect(
      eligibilityOf({ ...row, pause_starts_on: '2026-01-01', pause_resumes_on: '2026-02-01' }, now)
        .isEligible,
    ).toBe(true);
    expect(
      eligibilityOf({ ...row, subscription_status: null, product_name: null }, now).isEligible,
    ).toBe(false);
    expect(eligibilityOf({ ...row, subscription_status: 'incomplete' }, now).isEligible).toBe(
      false,
    );
  });
});
