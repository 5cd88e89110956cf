import { describe, expect, it } from 'vitest';
import { formatHours, formatLiveBytes, formatWatchTime } from './live-view-figures.ts';

describe('live view figures', () => {
  it('reads data as the dashboard does (10^9 bytes a GB)', () => {
    expect(formatLiveBytes(850)).toBe('1 KB');
    expect(formatLiveBytes(3_420_000)).toBe('3.4 MB');
    expect(formatLiveBytes(1_250_000_000)).toBe('1.25 GB');
    expect(formatLiveBytes(41_230_000_000)).toBe('41.2 GB');
  });

  it('reads time in hours and minutes', () => {
    expect(formatHours(120 * 3600)).toBe('120 h');
    expect(formatHours(118 * 3600 + 12 * 60 + 30)).toBe('118 h 12 min');
    expect(formatHours(59 * 60)).toBe('59 min');
    expect(formatWatchTime(7)).toBe('7 s');
    expect(formatWatchTime(125)).toBe('2 min 05 s');
  });
});
