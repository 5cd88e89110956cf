/// <reference lib="dom" />
/**
 * The farmer's phone on one bar of signal (issue 25 item 3, decision 118): `/dashboard` signed in
 * as demo@example.com at 390 px in Debian's Chromium, with the network and the CPU slowed through
 * the DevTools protocol (400 kbps both ways, 400 ms added to every request, the CPU 4x slower),
 * beside the same visits unthrottled.
 *
 * - First visit (an empty browser: no HTTP cache, no service worker, nothing kept): when the frame
 *   paints (first contentful paint: the prerendered app shell), and when the camera cards are
 *   usable (the app has rendered them, with their links).
 * - Repeat visit (the same browser, once the service worker is installed and the answers are kept
 *   on the device): when the cards show from the device, and when the network's fresh camera list
 *   has arrived and the "Updated … ago" notice has gone.
 * Each figure is the median of BENCH_PHONE_RUNS (3) runs, each in a fresh browser.
 */
import { type BrowserContext, type Page } from 'playwright-core';
import { keepSession, withChromium } from '../lib/browser.ts';
import { metric, type Metric, type Scenario } from '../lib/types.ts';
import { median } from '../lib/median.ts';

const name = 'phone';
const oneBar = { kbps: 400, latencyMs: 400, cpuSlowdown: 4 };

/** Times (ms since navigation start) the page records for itself, from before its first byte. */
const recorder = `(() => {
  const marks = (window.__benchMarks = {});
  const note = (key) => {
    if (marks[key] === undefined) requestAnimationFrame(() => (marks[key] ??= performance.now()));
  };
  const check = () => {
    if (document.querySelector('article a[aria-label^="More info for"]')) note('cards');
    const notice = document.querySelector('main p[role="status"]');
    if (notice && !notice.hidden && /^Updated /.test(notice.textContent ?? '')) note('noticeShown');
    if (marks.noticeShown !== undefined && (!notice || notice.hidden)) note('noticeGone');
  };
  new MutationObserver(check).observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
    characterData: true,
  });
})();`;

interface VisitTimes {
  frameMs: number | null;
  cardsMs: number | null;
  /** When the camera list's network answer ended (the refresh), from the resource timing. */
  freshListMs: number | null;
  /** When "Updated … ago" went, if it showed (the kept list was older than 30 s). */
  noticeGoneMs: number | null;
}

async function throttle(context: BrowserContext, page: Page): Promise<void> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  const bytesPerSecond = (oneBar.kbps * 1000) / 8;
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: oneBar.latencyMs,
    downloadThroughput: bytesPerSecond,
    uploadThroughput: bytesPerSecond,
  });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: oneBar.cpuSlowdown });
}

async function visit(page: Page, url: string, isRepeat: boolean): Promise<VisitTimes> {
  await page.goto(url, { waitUntil: 'commit' });
  await page.waitForFunction(
    (repeat) => {
      const marks = (window as unknown as { __benchMarks?: Record<string, number> }).__benchMarks;
      const freshList = performance
        .getEntriesByType('resource')
        .some((entry) => entry.name.includes('/api/cameras/plansV2'));
      // The repeat visit is done when the network's list is in and any notice has gone.
      return (
        marks?.cards !== undefined &&
        (!repeat ||
          (freshList && (marks.noticeShown === undefined || marks.noticeGone !== undefined)))
      );
    },
    isRepeat,
    { timeout: 60_000, polling: 100 },
  );
  return page.evaluate(() => {
    const marks = (window as unknown as { __benchMarks: Record<string, number> }).__benchMarks;
    const paint = performance.getEntriesByName('first-contentful-paint')[0];
    const list = performance
      .getEntriesByType('resource')
      .find((entry) => entry.name.includes('/api/cameras/plansV2')) as
      PerformanceResourceTiming | undefined;
    return {
      frameMs: paint ? paint.startTime : null,
      cardsMs: marks.cards ?? null,
      freshListMs: list ? list.responseEnd : null,
      noticeGoneMs: marks.noticeGone ?? null,
    };
  });
}

interface RunResult {
  first: VisitTimes;
  repeat: VisitTimes;
}

async function runOnce(baseUrl: string, token: string, isThrottled: boolean): Promise<RunResult> {
  return withChromium(async (browser) => {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    const page = await context.newPage();
    await keepSession(page, baseUrl, token);
    await page.addInitScript(recorder);
    if (isThrottled) await throttle(context, page);
    const first = await visit(page, `${baseUrl}/dashboard`, false);
    // The service worker installs once the first answers are in, and the kept answers are
    // written within a second: wait for both before the repeat visit.
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, {
      timeout: 60_000,
    });
    await page.waitForTimeout(1500);
    const repeat = await visit(page, `${baseUrl}/dashboard`, true);
    return { first, repeat };
  });
}

const scenario: Scenario = {
  name,
  async run(context) {
    const runCount = Math.max(1, Number(process.env.BENCH_PHONE_RUNS ?? 3) || 3);
    const metrics: Metric[] = [];
    const details: Record<string, RunResult[]> = {};
    for (const isThrottled of [true, false]) {
      const label = isThrottled ? 'one bar' : 'unthrottled';
      const runs: RunResult[] = [];
      for (let run = 0; run < runCount; run += 1) {
        const result = await runOnce(context.baseUrl, context.customerToken, isThrottled);
        runs.push(result);
        context.log(
          `${label} run ${run + 1}/${runCount}: first visit frame ${Math.round(result.first.frameMs ?? 0)} ms, ` +
            `cards ${Math.round(result.first.cardsMs ?? 0)} ms; repeat visit cards ` +
            `${Math.round(result.repeat.cardsMs ?? 0)} ms, fresh list ${Math.round(result.repeat.freshListMs ?? 0)} ms`,
        );
      }
      details[label] = runs;
      const of = (pick: (run: RunResult) => number | null) => {
        const value = median(runs.map(pick));
        return value === null ? null : Math.round(value);
      };
      const target = (atMost: number) => (isThrottled ? { atMost } : undefined);
      metrics.push(
        metric(
          name,
          `${label}: first visit, frame painted`,
          of((run) => run.first.frameMs),
          'ms',
          target(1500),
        ),
        metric(
          name,
          `${label}: first visit, camera cards usable`,
          of((run) => run.first.cardsMs),
          'ms',
          target(3000),
        ),
        metric(
          name,
          `${label}: repeat visit, cards from the device`,
          of((run) => run.repeat.cardsMs),
          'ms',
          target(1000),
        ),
        metric(
          name,
          `${label}: repeat visit, fresh camera list in`,
          of((run) => run.repeat.freshListMs),
          'ms',
        ),
        metric(
          name,
          `${label}: repeat visit, "Updated … ago" gone`,
          of((run) => run.repeat.noticeGoneMs),
          'ms',
        ),
      );
    }
    return { metrics, details };
  },
};

export default scenario;
