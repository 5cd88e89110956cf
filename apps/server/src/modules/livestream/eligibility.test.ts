import { describe, expect, it } from 'vitest';
import { eligibilityOf, isHeavyPlan, livestreamEligibility } from './eligibility.ts';
import type { CameraPlanRow } from './livestream.repository.ts';

const eligible = {
  productName: 'Heavy Streaming',
  subStatus: 'active' as const,
  simState: 'active' as const,
  isBarred: false,
};

describe('livestreaming eligibility (docs/requirements.md#input-rules)', () => {
  it('needs "heavy" in the product name, in any case', () => {
    expect(isHeavyPlan('Heavy Streaming')).toBe(true);
    expect(isHeavyPlan('HEAVY')).toBe(true);
    expect(isHeavyPlan('Multi-network heavy plan')).toBe(true);
    expect(isHeavyPlan('Standard Streaming')).toBe(false);
    expect(isHeavyPlan(null)).toBe(false);
    expect(livestreamEligibility({ ...eligible, productName: 'Light Streaming' })).toEqual({
      isEligible: false,
      reason: expect.stringContaining('included in the Heavy Streaming plan'),
    });
  });

  it('needs the SubStatus to be active', () => {
    expect(livestreamEligibility(eligible)).toEqual({ isEligible: true });
    for (const subStatus of [
      'paused',
      'past_due',
      'overdue',
      'canceled',
      'pause scheduled',
    ] as const) {
      expect(livestreamEligibility({ ...eligible, subStatus })).toEqual({
        isEligible: false,
        reason: `Livestreaming needs an active Heavy Streaming subscription; this camera's is ${subStatus}.`,
      });
    }
  });

  it('needs a live, unbarred SIM', () => {
    expect(livestreamEligibility({ ...eligible, simState: 'paused' }).isEligible).toBe(false);
    expect(livestreamEligibility({ ...eligible, simState: 'terminated' }).isEligible).toBe(false);
    expect(livestreamEligibility({ ...eligible, isBarred: true }).isEligible).toBe(false);
  });

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
