/**
 * The daily usage line chart (docs/requirements.md#screens): GB on the y axis, legend at the bottom, 8 px fonts at
 * 850 px and narrower, 12 px above (docs/requirements.md#limits). Chart.js is imported here only, and this module is
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

ChartJS.register(CategoryScale, LinearScale, PointElement, LineElement, Filler, Tooltip, Legend);

const narrowQuery = '(max-width: 850px)';
export const chartFontSizes = { narrow: 8, wide: 12 } as const;

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

const shortDay = (day: string) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'short',
    timeZone: 'UTC',
  });

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
        callbacks: { label: (item) => ` ${(item.parsed.y ?? 0).toFixed(2)} GB` },
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

export default function UsageChart({ dailyGB }: { dailyGB: Record<string, number> }) {
  const isNarrow = useIsNarrowScreen();
  const fontSize = isNarrow ? chartFontSizes.narrow : chartFontSizes.wide;

  const data = useMemo<ChartData<'line'>>(() => {
    const primary = cssColour('--color-primary', '#2f6b3a');
    const entries = Object.entries(dailyGB);
    return {
      labels: entries.map(([day]) => shortDay(day)),
      datasets: [
        {
          label: 'Data used per day (GB)',
          data: entries.map(([, gigabytes]) => gigabytes),
          borderColor: primary,
          backgroundColor: `${primary}26`,
          pointBackgroundColor: primary,
          pointRadius: entries.length > 40 ? 0 : 2.5,
          borderWidth: 2,
          fill: true,
          tension: 0.25,
        },
      ],
    };
  }, [dailyGB]);

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
  const label = `Line chart of data used per day over ${values.length} days, ${total.toFixed(2)} GB in total. The figures are in the table below.`;

  return <Line data={data} options={options} role="img" aria-label={label} />;
}
