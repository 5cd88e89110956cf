import { describe, expect, it } from 'vitest';
import { formatPictureTime } from './uk-time.ts';

describe('formatPictureTime', () => {
  const now = new Date('2026-07-15T10:00:00Z'); // 11:00 in the UK (summer time)
  it('says today and yesterday in UK time, else the day', () => {
    expect(formatPictureTime('2026-07-15T13:02:00Z', now)).toBe('14:02 today');
    expect(formatPictureTime('2026-07-14T21:15:00Z', now)).toBe('22:15 yesterday');
    // 23:30 UTC on the 14th is already the 15th in the UK.
    expect(formatPictureTime('2026-07-14T23:30:00Z', now)).toBe('00:30 today');
    expect(formatPictureTime('2026-07-03T12:00:00Z', now)).toBe('3 Jul, 13:00');
  });
});
