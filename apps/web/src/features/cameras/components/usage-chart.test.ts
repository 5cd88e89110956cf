import { describe, expect, it } from 'vitest';
import { buildUsageChartOptions, chartFontSizes } from './usage-chart.tsx';

describe('usage chart options (docs/requirements.md#screens, #limits)', () => {
  it('labels the y axis with GB and puts the legend at the bottom', () => {
    const options = buildUsageChartOptions(chartFontSizes.wide, false);
    expect(options.plugins?.legend?.position).toBe('bottom');
    const y = options.scales?.y as { title: { display: boolean; text: string } };
    expect(y.title).toMatchObject({ display: true, text: 'GB' });
  });

  it('uses 11 px fonts at 850 px and under (readable on a phone, decision 143), 12 px above', () => {
    expect(chartFontSizes).toEqual({ narrow: 11, wide: 12 });
    const narrow = buildUsageChartOptions(chartFontSizes.narrow, false);
    const x = narrow.scales?.x as { ticks: { font: { size: number } } };
    expect(x.ticks.font.size).toBe(11);
    expect(narrow.plugins?.legend?.labels?.font).toEqual({ size: 11 });
  });

  it('does not animate for people who asked for less motion', () => {
    expect(buildUsageChartOptions(12, true).animation).toBe(false);
  });
});
