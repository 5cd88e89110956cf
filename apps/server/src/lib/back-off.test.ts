import { describe, expect, it } from 'vitest';
import { doublingWait, withJitter } from './back-off.ts';

describe('back-off (decision 170)', () => {
  it('doubles the wait after each failure, up to its most', () => {
    expect([1, 2, 3, 4, 5].map((failure) => doublingWait(60, failure))).toEqual([
      60, 120, 240, 480, 960,
    ]);
    expect([1, 6, 7, 30].map((failure) => doublingWait(60, failure, 3600))).toEqual([
      60, 1920, 3600, 3600,
    ]);
    // No failure yet waits as the first one does.
    expect(doublingWait(200, 0)).toBe(200);
  });

  it('spreads a wait by up to a quarter either way', () => {
    expect(withJitter(1000, () => 0)).toBe(750);
    expect(withJitter(1000, () => 0.5)).toBe(1000);
    expect(withJitter(1000, () => 0.999)).toBeCloseTo(1249.5);
  });
});
