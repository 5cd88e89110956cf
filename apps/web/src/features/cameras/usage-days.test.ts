import { describe, expect, it } from 'vitest';
import { usageDayLabel, usageGb, usageGbNumber } from './usage-days.ts';

describe("the usage card's days and figures (decision 143)", () => {
  it('writes every day one way, and today as so far', () => {
    expect(usageDayLabel('2026-11-03', null)).toBe('3 Nov');
    expect(usageDayLabel('2026-11-28', '2026-11-28')).toBe('28 Nov (so far)');
    expect(usageDayLabel('2026-11-27', '2026-11-28')).toBe('27 Nov');
  });

  it('rounds GB to two decimals everywhere', () => {
    expect(usageGb(0.4)).toBe('0.40 GB');
    expect(usageGb(12.345)).toBe('12.35 GB');
    expect(usageGbNumber(1234.5)).toBe('1,234.50');
  });
});
