import { describe, expect, it } from 'vitest';
import { isHeavyPlan, livestreamEligibility } from './livestream-eligibility.ts';

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
});
