import { describe, expect, it } from 'vitest';
import {
  billingIntervalTextOf,
  chipTextOf,
  chipToneOf,
  planNameOf,
  planTierOf,
} from './camera-state.ts';

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

describe('plan tier and name (docs/requirements.md#data)', () => {
  it.each([
    ['Light Streaming', 'light', 'Light Streaming'],
    ['Standard Streaming', 'standard', 'Standard Streaming'],
    ['HEAVY streaming plan', 'heavy', 'Heavy Streaming'],
    ['Solar Streaming', 'Solar', 'Solar Streaming'],
    ['Streaming', 'Unknown', 'Unknown Streaming'],
    ['  streaming  STREAMING ', 'Unknown', 'Unknown Streaming'],
  ])('%j is tier %j, shown as %j', (productName, tier, name) => {
    expect(planTierOf(productName)).toBe(tier);
    expect(planNameOf(productName)).toBe(name);
  });

  it("says 'No Plan' without a product", () => {
    expect(planNameOf(null)).toBe('No Plan');
    expect(planNameOf(undefined)).toBe('No Plan');
    expect(planNameOf('')).toBe('No Plan');
  });

  it('bills monthly or annually', () => {
    expect(billingIntervalTextOf('month')).toBe('Billed Monthly');
    expect(billingIntervalTextOf('year')).toBe('Billed Annually');
  });
});
