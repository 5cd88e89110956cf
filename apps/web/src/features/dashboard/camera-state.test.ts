import { describe, expect, it } from 'vitest';
import { billingIntervalTextOf, chipTextOf, chipToneOf, planNameOf } from './camera-state.ts';

describe('status chip colours (docs/requirements.md#states)', () => {
  it.each([
    ['active', 'success'],
    ['Attention', 'danger'],
    ['Barred', 'danger'],
    ['canceled', 'danger'],
    ['overdue', 'danger'],
    ['past_due', 'danger'],
    ['paused', 'warning'],
    ['pause scheduled', 'warning'],
    ['terminated', 'inactive'],
    ['incomplete', 'neutral'],
    ['', 'neutral'],
  ])('%j is %s', (label, tone) => {
    expect(chipToneOf(label)).toBe(tone);
  });

  it('names each state in words', () => {
    expect(chipTextOf('past_due')).toBe('Past due');
    expect(chipTextOf('pause scheduled')).toBe('Pause scheduled');
    expect(chipTextOf('Attention')).toBe('Attention');
    expect(chipTextOf('trial_period')).toBe('Trial period');
  });
});

describe('plan name from the tier the server sends (decision 170)', () => {
  it.each([
    ['light', 'Light Streaming'],
    ['standard', 'Standard Streaming'],
    ['heavy', 'Heavy Streaming'],
  ] as const)('%j is shown as %j', (tier, name) => {
    expect(planNameOf(tier)).toBe(name);
  });

  it("says 'No Plan' without a plan", () => {
    expect(planNameOf(null)).toBe('No Plan');
  });

  it('bills monthly or annually', () => {
    expect(billingIntervalTextOf('month')).toBe('Billed Monthly');
    expect(billingIntervalTextOf('year')).toBe('Billed Annually');
  });
});
