/// <reference lib="dom" />
/**
 * The dashboard with 1,000 cameras in Debian's Chromium at 1280 px (decisions 012, 140 and 177):
 * the demo's cameras a hundred times over, as one plansV2 answer (the browser answers the call
 * itself, so only the page's work is measured). From the activation page, a click on Account opens
 * the grid; then the finder narrows it to one camera's eleven namesakes, clears, and (at 390 px)
 * filters by a state. Each is measured in the page's own main-thread CPU time (DevTools'
 * `ThreadTime`), not the wall clock, so another process on the cores does not count; the finder's
 * figures add the 150 ms the grid waits for typing to pause. The baseline, in the same browser and
 * run: the same click with the demo's own ten cameras. Median of BENCH_SCALE_RENDER_RUNS (3)
 * fresh browsers.
 *
 * This is where the 1,000-card budgets are judged; the journey (e2e/tests/04-dashboard-scale.spec.ts)
 * checks what the page does at that size (all cards there, a handful of layouts, the finder's
 * answers), not how fast a loaded CI machine does it.
 */
import { type CDPSession, type Page } from 'playwright-core';
import { keepSession, withChromium } from '../lib/browser.ts';
import { metric, type Metric, type Scenario } from '../lib/types.ts';
import { median } from '../lib/median.ts';

const name = 'dashboard-scale';
const cardCount = 1000;
const typingPauseMs = 150;

interface PageMetrics {
  layouts: number;
  cpuMs: number;
}

async function pageMetrics(session: CDPSession): Promise<PageMetrics> {
  const { metrics } = (await session.send('Performance.getMetrics')) as {
    metrics: { name: string; value: number }[];
  };
  const valueOf = (key: string) => metrics.find((entry) => entry.name === key)?.value;
  const threadTime = valueOf('ThreadTime');
  if (threadTime === undefined) throw new Error('Chromium reports no ThreadTime');
  return { layouts: valueOf('LayoutCount') ?? 0, cpuMs: threadTime * 1000 };
}

/** From /activate, a click on Account until the grid has rendered: the page's CPU and layouts. */
async function openGrid(page: Page, session: CDPSession, baseUrl: string): Promise<PageMetrics> {
  await page.goto(`${baseUrl}/activate`);
  const account = page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Account' });
  await account.waitFor();
  await page.evaluate(() => performance.clearMarks('camera-grid:rendered'));
  const before = await pageMetrics(session);
  await account.click();
  // The grid's own mark: polling 1,000 articles for their names would itself be measured.
  await page.waitForFunction(
    () => performance.getEntriesByName('camera-grid:rendered').length > 0,
    undefined,
    { polling: 250, timeout: 60_000 },
  );
  const after = await pageMetrics(session);
  return { layouts: after.layouts - before.layouts, cpuMs: after.cpuMs - before.cpuMs };
}

interface RunResult {
  baselineMs: number;
  renderMs: number;
  layouts: number;
  searchMs: number;
  clearMs: number;
  filterMs: number;
}

async function runOnce(baseUrl: string, token: string): Promise<RunResult> {
  return withChromium(async (browser) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await keepSession(page, baseUrl, token);
    const session = await context.newCDPSession(page);
    await session.send('Performance.enable', { timeDomain: 'threadTicks' });

    const realPlans = (await (
      await page.request.get(`${baseUrl}/api/cameras/plansV2`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as { cameras: { findStates: string[] }[] };
    // The baseline first, with the portal's own answer, warming the page's code the same way.
    const baseline = await openGrid(page, session, baseUrl);

    const cameras = Array.from({ length: cardCount }, (_, index) => ({
      ...realPlans.cameras[index % realPlans.cameras.length],
      SIM_ICCID: `8944990000${String(index).padStart(9, '0')}`,
      nicknameInDatabase: `Camera ${index + 1}`,
      displayName: `Camera ${index + 1}`,
    }));
    await page.route('**/api/cameras/plansV2', (route) =>
      route.fulfill({ json: { ...realPlans, cameras } }),
    );
    const render = await openGrid(page, session, baseUrl);

    // The finder's summary, found with one selector: a role locator polling 1,000 cards' names
    // would itself be measured (it did: 1.3-1.6 s for a search the page did in a third of that).
    const timed = async (action: () => Promise<unknown>, shows: string) => {
      const before = await pageMetrics(session);
      await action();
      await page.waitForFunction(
        (text) =>
          Array.from(document.querySelectorAll('main p[role="status"]')).some(
            (element) => element.textContent === text,
          ),
        shows,
        { polling: 100, timeout: 60_000 },
      );
      const after = await pageMetrics(session);
      return after.cpuMs - before.cpuMs + typingPauseMs;
    };
    const search = page.getByRole('searchbox', { name: 'Find a camera' });
    const searchMs = await timed(() => search.fill('Camera 77'), `11 of ${cardCount} cameras`);
    const clearMs = await timed(() => search.fill(''), `${cardCount} cameras`);
    await page.setViewportSize({ width: 390, height: 844 });
    const overdue = cameras.filter((camera) => camera.findStates?.includes('overdue')).length;
    const filterMs = await timed(
      () => page.getByRole('combobox', { name: 'Show' }).selectOption('overdue'),
      `${overdue} of ${cardCount} cameras`,
    );
    return {
      baselineMs: baseline.cpuMs,
      renderMs: render.cpuMs,
      layouts: render.layouts,
      searchMs,
      clearMs,
      filterMs,
    };
  });
}

const scenario: Scenario = {
  name,
  async run(context) {
    const runCount = Math.max(1, Number(process.env.BENCH_SCALE_RENDER_RUNS ?? 3) || 3);
    const runs: RunResult[] = [];
    for (let run = 0; run < runCount; run += 1) {
      const result = await runOnce(context.baseUrl, context.customerToken);
      runs.push(result);
      context.log(
        `run ${run + 1}/${runCount}: ten cards ${Math.round(result.baselineMs)} ms of CPU, ` +
          `${cardCount} cards ${Math.round(result.renderMs)} ms (${result.layouts} layouts); ` +
          `search ${Math.round(result.searchMs)} ms, clear ${Math.round(result.clearMs)} ms, ` +
          `filter ${Math.round(result.filterMs)} ms`,
      );
    }
    const of = (pick: (run: RunResult) => number) => {
      const value = median(runs.map(pick));
      return value === null ? null : Math.round(value);
    };
    const ratio = median(runs.map((run) => run.renderMs / Math.max(run.baselineMs, 1)));
    const metrics: Metric[] = [
      metric(
        name,
        'ten cards: click to grid, page CPU',
        of((run) => run.baselineMs),
        'ms',
      ),
      metric(
        name,
        `${cardCount} cards: click to grid, page CPU`,
        of((run) => run.renderMs),
        'ms',
        { atMost: 1000 },
      ),
      metric(
        name,
        `${cardCount} cards ÷ ten cards (CPU)`,
        ratio === null ? null : Math.round(ratio * 10) / 10,
        'x',
      ),
      metric(
        name,
        `${cardCount} cards: layouts`,
        of((run) => run.layouts),
        '',
        { atMost: 20 },
      ),
      metric(
        name,
        'search to 11 (CPU + pause)',
        of((run) => run.searchMs),
        'ms',
        {
          atMost: 1000,
        },
      ),
      metric(
        name,
        'cleared (CPU + pause)',
        of((run) => run.clearMs),
        'ms',
        { atMost: 1500 },
      ),
      metric(
        name,
        'filter by state at 390 px (CPU + pause)',
        of((run) => run.filterMs),
        'ms',
        {
          atMost: 1000,
        },
      ),
    ];
    return { metrics, details: runs };
  },
};

export default scenario;
