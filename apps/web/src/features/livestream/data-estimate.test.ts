import { describe, expect, it } from 'vitest';
import { estimateMonthlyData, formatGb } from './data-estimate.ts';

describe('monthly data estimate', () => {
  it('multiplies schedule, clip length and quality, against the allowance', () => {
    // 9 hours × 5 days × 4.348 weeks ≈ 196 recordings of 16 s at 1 Mbit/s + 5%.
    const estimate = estimateMonthlyData({
      hoursPerDay: 9,
      daysPerWeek: 5,
      durationSeconds: 15,
      quality: 'SD',
      includeAudio: false,
      allowanceGb: 50,
    });
    expect(estimate.recordingsPerMonth).toBe(196);
    expect(estimate.gbPerMonth).toBeCloseTo((195.66 * 16 * 1_000_000 * 1.05) / 8 / 1e9, 3);
    expect(estimate.percentOfAllowance).toBeCloseTo((estimate.gbPerMonth / 50) * 100, 6);
  });

  it('grows with HD, audio and longer clips', () => {
    const base = { hoursPerDay: 24, daysPerWeek: 7, allowanceGb: 50 } as const;
    const sd = estimateMonthlyData({
      ...base,
      durationSeconds: 60,
      quality: 'SD',
      includeAudio: false,
    });
    const sdAudio = estimateMonthlyData({
      ...base,
      durationSeconds: 60,
      quality: 'SD',
      includeAudio: true,
    });
    const hd = estimateMonthlyData({
      ...base,
      durationSeconds: 60,
      quality: 'HD',
      includeAudio: false,
    });
    expect(sdAudio.gbPerMonth).toBeGreaterThan(sd.gbPerMonth);
    expect(hd.gbPerMonth).toBeCloseTo(sd.gbPerMonth * 3, 6);
    // Every hour of every day, a minute of HD: 731 × 61 s × 3 Mbit/s × 1.05 ≈ 17.5 GB.
    expect(hd.gbPerMonth).toBeCloseTo(17.54, 1);
    expect(hd.percentOfAllowance).toBeCloseTo(35.1, 0);
  });

  it('has no share without an allowance, and formats GB', () => {
    expect(
      estimateMonthlyData({
        hoursPerDay: 1,
        daysPerWeek: 1,
        durationSeconds: 15,
        quality: 'SD',
        includeAudio: false,
        allowanceGb: 0,
      }).percentOfAllowance,
    ).toBeNull();
    expect(formatGb(0.4123)).toBe('0.41 GB');
    expect(formatGb(12.6)).toBe('13 GB');
  });
});
