/**
 * The daily usage line chart (docs/requirements.md#screens): GB on the y axis, legend at the bottom, 11 px fonts at
 * 850 px and narrower (the spec's 8 px could not be read on a phone: decision 143), 12 px above.
 * Today's figure grows until midnight: its point is hollow, the line to it dashed, its label
 * "(so far)", so a morning's small figure does not read as a crash to zero. Chart.js is imported here only, and this module is
 * loaded lazily by the camera details page, so no other page downloads it.
 */
import {
  CategoryScale,
  Chart as ChartJS,
  Filler,
  Legend,
  LinearScale,
  LineElement,
  PointElement,
  Tooltip,
  type ChartData,
  type ChartOptions,
} from 'chart.js';
import { useMemo, useSyncExternalStore } from 'react';
import { Line } from 'react-chartjs-2';
import { usageDayLabel, usageGb } from '../usage-days.ts';

ChartJS.register(CategoryScale, LinearScale, PointElement, LineElement, Filler, Tooltip, Legend);

const narrowQuery = '(max-width: 850px)';
export const chartFontSizes = { narrow: 11, wide: 12 } as const;

function useIsNarrowScreen(): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const query = window.matchMedia(narrowQuery);
      query.addEventListener('change', onChange);
      return () => query.removeEventListener('change', onChange);
    },
    () => window.matchMedia(narrowQuery).matches,
  );
}

function cssColour(name: string, fallback: string): string {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value === '' ? fallback : value;
}

/** docs/requirements.md#screens/#limits: GB on the y axis, legend at the bottom, the given font size everywhere. */
export function buildUsageChartOptions(
  fontSize: number,
  isReducedMotion: boolean,
): ChartOptions<'line'> {
  const font = { size: fontSize };
  return {
    responsive: true,
    maintainAspectRatio: false,
    animation: isReducedMotion ? false : { duration: 400 },
    interaction: { mode: 'index', intersect: false },
    plugins: {
      legend: { position: 'bottom', labels: { font } },
      tooltip: {
        titleFont: font,
        bodyFont: font,
        callbacks: { label: (item) => ` ${usageGb(item.parsed.y ?? 0)}` },
      },
    },
    scales: {
      x: { ticks: { font, maxRotation: 0, autoSkipPadding: 8 }, grid: { display: false } },
      y: {
        beginAtZero: true,
        title: { display: true, text: 'GB', font },
        ticks: { font },
      },
    },
  };
}

export default function UsageChart({
  dailyGB,
  todaySoFar,
}: {
  dailyGB: Record<string, number>;
  /** The day still being counted (the server's todaySoFar), drawn as "so far". */
  todaySoFar: string | null;
}) {
  const isNarrow = useIsNarrowScreen();
  const fontSize = isNarrow ? chartFontSizes.narrow : chartFontSizes.wide;

  const data = useMemo<ChartData<'line'>>(() => {
    const primary = cssColour('--color-primary', '#2f6b3a');
    const entries = Object.entries(dailyGB);
    const soFarIndex = entries.findIndex(([day]) => day === todaySoFar);
    const isSoFar = (index: number) => index === soFarIndex;
    return {
      labels: entries.map(([day]) => usageDayLabel(day, todaySoFar)),
      datasets: [
        {
          label: 'Data used per day (GB)',
          data: entries.map(([, gigabytes]) => gigabytes),
          borderColor: primary,
          backgroundColor: `${primary}26`,
          pointBackgroundColor: entries.map((_, index) => (isSoFar(index) ? '#ffffff' : primary)),
          pointRadius: entries.map((_, index) =>
            isSoFar(index) ? 4 : entries.length > 40 ? 0 : 2.5,
          ),
          segment: {
            borderDash: (context) => (isSoFar(context.p1DataIndex) ? [5, 4] : undefined),
          },
          borderWidth: 2,
          fill: true,
          tension: 0.25,
        },
      ],
    };
  }, [dailyGB, todaySoFar]);

  const options = useMemo(
    () =>
      buildUsageChartOptions(
        fontSize,
        window.matchMedia('(prefers-reduced-motion: reduce)').matches,
      ),
    [fontSize],
  );

  const values = Object.values(dailyGB);
  const total = values.reduce((sum, value) => sum + value, 0);
  const soFar = todaySoFar !== null && todaySoFar in dailyGB ? ', today so far' : '';
  const label = `Line chart of data used per day over ${values.length} days${soFar}, ${usageGb(total)} in total. The figures are in the table below.`;

  return <Line data={data} options={options} role="img" aria-label={label} />;
}
