import { describe, expect, it } from 'vitest';
import { signalRating } from './signal-rating.ts';

describe('signal rating (docs/requirements.md#states)', () => {
  it('shows 0 and a missing level as Poor Signal, red, not covered', () => {
    for (const level of [0, null, undefined]) {
      expect(signalRating(level)).toMatchObject({
        label: 'Poor Signal',
        tone: 'danger',
        isCovered: false,
      });
    }
  });

  it('shows the retired levels 1 and 2 as Poor Signal too', () => {
    expect(signalRating(1).label).toBe('Poor Signal');
    expect(signalRating(2).isCovered).toBe(false);
  });

  it('shows 3 as Limited Signal, orange, covered', () => {
    expect(signalRating(3)).toMatchObject({
      label: 'Limited Signal',
      tone: 'warning',
      isCovered: true,
    });
  });

  it('shows 4 as Strong Signal, green, covered', () => {
    expect(signalRating(4)).toMatchObject({
      label: 'Strong Signal',
      tone: 'success',
      isCovered: true,
    });
  });
});
