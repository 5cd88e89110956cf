/**
 * Lighthouse (mobile, the default config: simulated slow 4G and a mid-range phone) in Debian's
 * headless Chromium, offline, on the first screen `/` and on the pages a customer opens next:
 * `/dashboard`, `/camera/{id}` and `/livestreaming` signed in as demo@example.com (the session
 * put in the browser's local storage under `token`, as the SPA keeps it after the e-mailed link),
 * `/activate` and `/postcode` as a visitor. Each run is a fresh browser with an empty HTTP cache.
 * A Lighthouse failure is reported as unmeasured metrics with the reason; it does not stop the
 * rest of the bench. Each metric is the median of BENCH_LIGHTHOUSE_RUNS runs (default 3);
 * BENCH_LIGHTHOUSE_PAGES (e.g. `/,/dashboard`) picks pages by their label.
 *
 * Each page is measured two ways in (decision 178), BENCH_LIGHTHOUSE_WAYS (`front,direct`):
 * through the production front (Caddy with TLS and HTTP/2, bench/lib/front.ts), as a farmer's
 * phone reaches the portal, which the targets judge; and straight to the portal's own port over
 * plain HTTP/1.1, as every stop before measured it, beside it without a target.
 */
import fs from 'node:fs';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { Simulation } from 'lighthouse/core/lib/lantern/lantern.js';
import { frontUnavailable, startFront } from '../lib/front.ts';
import { onAbnormalExit } from '../lib/processes.ts';
import { metric, type Metric, type Scenario } from '../lib/types.ts';
import { median } from '../lib/median.ts';

const name = 'lighthouse';
const chromePath = process.env.CHROME_PATH ?? '/usr/bin/chromium';
const chromeFlags = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  // The front's certificate is from Caddy's own local authority (bench/lib/front.ts).
  '--ignore-certificate-errors',
];
const runTimeoutMs = 180_000;
/** Lighthouse's 4 unless BENCH_LIGHTHOUSE_CPU_SLOWDOWN says otherwise (8: a machine half as fast). */
const cpuSlowdownMultiplier = Number(process.env.BENCH_LIGHTHOUSE_CPU_SLOWDOWN ?? 4) || 4;

const timingAudits = {
  'first-contentful-paint': 'FCP',
  'largest-contentful-paint': 'LCP',
  'total-blocking-time': 'TBT',
  'speed-index': 'Speed Index',
} as const;

interface RunSummary {
  performance: number | null;
  accessibility: number | null;
  timingsMs: Record<string, number | null>;
  cumulativeLayoutShift: number | null;
  /** Bytes of JavaScript the page loaded (as transferred, br), lazy chunks included. */
  scriptTransferBytes: number | null;
  failedAccessibilityAudits: string[];
  /** Performance audits with estimated savings, biggest first: where the score goes. */
  opportunities: string[];
  runWarnings: string[];
  /** With BENCH_LIGHTHOUSE_GRAPH=1: Lantern's LCP graph as simulated, a line per node. */
  lcpGraph: string[];
}

/**
 * The nodes of Lantern's optimistic LCP graph as its last simulation timed them (decisions 174,
 * 175): every request and main-thread task that ended before the unthrottled run's LCP, replayed on
 * the model phone. The last node to end is the simulated LCP; what ends before it shares the
 * bandwidth and the six connections.
 */
function lcpGraph(origin: string): string[] {
  const timings = Simulation.Simulator.allNodeTimings.get('optimisticLargestContentfulPaint');
  if (!timings) return ['(no LCP graph was simulated)'];
  return [...timings.entries()].map(([node, timing]) => {
    const span = `${Math.round(timing.startTime)}-${Math.round(timing.endTime)} ms`.padStart(14);
    if (node.type === 'network') {
      const { request } = node;
      return `${span} ${request.priority} ${request.resourceType ?? ''} ${request.url.replace(origin, '')} (${request.transferSize} B)`;
    }
    return `${span} main thread ${Math.round(node.duration / 1000)} ms${node.didPerformLayout() ? ', layout' : ''}`;
  });
}

/**
 * Drives the browser's first tab over DevTools before Lighthouse takes it. With a token, puts the
 * session in the way the SPA keeps it (local storage `token`, see apps/web/src/lib/auth-store.ts):
 * a page of the origin that loads no SPA asset, the token written there. Lighthouse clears the HTTP
 * cache but not local storage (its default clearStorageTypes), so the measured load is cold and
 * signed in. With `open`, then loads that page and waits until it has asked for nothing new for
 * half a second (the server's warm-up, below). Ends on about:blank.
 */
async function prepareBrowser(
  port: number,
  origin: string,
  options: { token?: string; open?: string },
): Promise<void> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    type: string;
    webSocketDebuggerUrl?: string;
  }[];
  const page = targets.find((target) => target.type === 'page' && target.webSocketDebuggerUrl);
  if (!page?.webSocketDebuggerUrl) throw new Error('Chromium has no page to put the session in');
  const socket = new WebSocket(page.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', () => reject(new Error('No DevTools connection')), {
      once: true,
    });
  });
  let nextId = 0;
  const send = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = (nextId += 1);
      const onMessage = (event: MessageEvent) => {
        const message = JSON.parse(String(event.data)) as {
          id?: number;
          result?: Record<string, unknown>;
          error?: { message: string };
        };
        if (message.id !== id) return;
        socket.removeEventListener('message', onMessage);
        if (message.error) reject(new Error(`${method}: ${message.error.message}`));
        else resolve(message.result ?? {});
      };
      socket.addEventListener('message', onMessage);
      socket.send(JSON.stringify({ id, method, params }));
    });
  try {
    await send('Page.enable');
    const loaded = () =>
      new Promise<void>((resolve) => {
        const onMessage = (event: MessageEvent) => {
          if (String(event.data).includes('"Page.loadEventFired"')) {
            socket.removeEventListener('message', onMessage);
            resolve();
          }
        };
        socket.addEventListener('message', onMessage);
      });
    if (options.token) {
      const healthLoaded = loaded();
      await send('Page.navigate', { url: `${origin}/api/healthz` });
      await healthLoaded;
      const written = await send('Runtime.evaluate', {
        expression: `localStorage.setItem('token', ${JSON.stringify(options.token)}); localStorage.getItem('token') !== null`,
        returnByValue: true,
      });
      if ((written.result as { value?: unknown } | undefined)?.value !== true) {
        throw new Error('The session could not be written to local storage');
      }
    }
    if (options.open) {
      const pageLoaded = loaded();
      await send('Page.navigate', { url: options.open });
      await pageLoaded;
      // Quiet: no new resource for half a second (at most 15 s).
      await send('Runtime.evaluate', {
        expression: `new Promise((resolve) => {
          const started = performance.now();
          let count = -1;
          const check = () => {
            const now = performance.getEntriesByType('resource').length;
            if (now === count || performance.now() - started > 15000) resolve(now);
            else { count = now; setTimeout(check, 500); }
          };
          check();
        })`,
        awaitPromise: true,
      });
    }
    await send('Page.navigate', { url: 'about:blank' });
  } finally {
    socket.close();
  }
}

/** The transferred bytes of the Script requests in Lighthouse's network-requests table. */
function scriptBytes(details: unknown): number | null {
  const items = (details as { items?: { resourceType?: string; transferSize?: number }[] })?.items;
  if (!Array.isArray(items)) return null;
  return items
    .filter((item) => item.resourceType === 'Script')
    .reduce((total, item) => total + (item.transferSize ?? 0), 0);
}

/**
 * With BENCH_LIGHTHOUSE_REPORTS=<folder>, each run's whole report is written there (open it in
 * https://googlechrome.github.io/lighthouse/viewer/): the LCP element, the request chain and the
 * main-thread work behind a score.
 */
function saveReport(lhr: { finalDisplayedUrl: string; fetchTime: string }): void {
  const folder = process.env.BENCH_LIGHTHOUSE_REPORTS;
  if (!folder) return;
  fs.mkdirSync(folder, { recursive: true });
  const page = new URL(lhr.finalDisplayedUrl).pathname.replace(/[^a-z0-9]+/gi, '-');
  const file = `${folder}/lighthouse${page === '-' ? '-root' : page.replace(/-$/, '')}-${lhr.fetchTime.replace(/[:.]/g, '-')}.json`;
  fs.writeFileSync(file, JSON.stringify(lhr));
}

async function launchChromium() {
  // chrome-launcher throws a missing binary from an event handler, out of reach of try/catch.
  try {
    fs.accessSync(chromePath, fs.constants.X_OK);
  } catch {
    throw new Error(`No Chromium at ${chromePath} (set CHROME_PATH)`);
  }
  return chromeLauncher.launch({ chromePath, chromeFlags, logLevel: 'silent' });
}

/**
 * One unmeasured load of the page, in a browser of its own, before its measured runs. Lantern
 * adds the server's response time, as it saw it, to every request it simulates, and a fresh
 * portal's first answers to a page's routes are slow (the figures are in decision 176). A portal
 * in production has answered these routes many times before a farmer's phone asks.
 */
async function warmUpServer(url: string, sessionToken?: string): Promise<void> {
  const chrome = await launchChromium();
  const forget = onAbnormalExit(() => chrome.kill());
  try {
    await prepareBrowser(chrome.port, new URL(url).origin, { token: sessionToken, open: url });
  } finally {
    chrome.kill();
    forget();
  }
}

async function runOnce(url: string, sessionToken?: string): Promise<RunSummary> {
  const chrome = await launchChromium();
  const forget = onAbnormalExit(() => chrome.kill());
  let timer: NodeJS.Timeout | undefined;
  try {
    if (sessionToken) {
      await prepareBrowser(chrome.port, new URL(url).origin, { token: sessionToken });
    }
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Lighthouse took longer than ${runTimeoutMs / 1000} s`)),
        runTimeoutMs,
      );
    });
    const result = await Promise.race([
      lighthouse(url, {
        port: chrome.port,
        output: 'json',
        logLevel: 'error',
        onlyCategories: ['performance', 'accessibility'],
        // Lighthouse's own phone; only the CPU's multiplier can be changed, to see how a slower
        // machine would score (decision 178).
        throttling: { ...Simulation.Constants.throttling.mobileSlow4G, cpuSlowdownMultiplier },
      }),
      timeout,
    ]);
    if (!result) throw new Error('Lighthouse returned no result');
    const { lhr } = result;
    saveReport(lhr);
    if (lhr.runtimeError) {
      throw new Error(`${lhr.runtimeError.code}: ${lhr.runtimeError.message}`);
    }
    const score = (id: string) => {
      const value = lhr.categories[id]?.score;
      return typeof value === 'number' ? Math.round(value * 100) : null;
    };
    const numeric = (id: string) => lhr.audits[id]?.numericValue ?? null;
    const accessibilityRefs = lhr.categories.accessibility?.auditRefs ?? [];
    const opportunities = Object.values(lhr.audits)
      .map((audit) => {
        const savings = audit.metricSavings ?? {};
        const fcpLcpMs = (savings.FCP ?? 0) + (savings.LCP ?? 0);
        const tbtMs = savings.TBT ?? 0;
        return { audit, weight: fcpLcpMs + tbtMs, savings };
      })
      .filter(({ audit, weight }) => weight > 0 && (audit.score ?? 1) < 1)
      .sort((a, b) => b.weight - a.weight)
      .slice(0, 5)
      .map(
        ({ audit, savings }) =>
          `${audit.id}${audit.displayValue ? ` (${audit.displayValue})` : ''}: saves ` +
          Object.entries(savings)
            .filter(([, value]) => (value ?? 0) > 0)
            .map(([key, value]) => `${key} ${Math.round(value ?? 0)}${key === 'CLS' ? '' : ' ms'}`)
            .join(', '),
      );
    return {
      performance: score('performance'),
      accessibility: score('accessibility'),
      timingsMs: Object.fromEntries(
        Object.keys(timingAudits).map((id) => [id, numeric(id)]),
      ) as Record<string, number | null>,
      cumulativeLayoutShift: numeric('cumulative-layout-shift'),
      scriptTransferBytes: scriptBytes(lhr.audits['network-requests']?.details),
      failedAccessibilityAudits: accessibilityRefs
        .filter((ref) => ref.weight > 0 && lhr.audits[ref.id]?.score === 0)
        .map((ref) => `${ref.id}: ${lhr.audits[ref.id]?.title ?? ''}`),
      opportunities,
      runWarnings: lhr.runWarnings,
      lcpGraph: process.env.BENCH_LIGHTHOUSE_GRAPH === '1' ? lcpGraph(new URL(url).origin) : [],
    };
  } finally {
    clearTimeout(timer);
    chrome.kill();
    forget();
  }
}

interface Page {
  /** How the page is named in the results (`/camera/{id}` rather than one camera's number). */
  label: string;
  path: string;
  isSignedIn: boolean;
  performanceAtLeast: number;
  /** The LCP aim: `/` (issue 15) and every signed-in page (issue 25); informational elsewhere. */
  lcpAtMostMs?: number;
}

/** A camera of the signed-in customer, for `/camera/{id}`, and its billing account. */
async function firstCamera(
  baseUrl: string,
  token: string,
): Promise<{ cameraId: string; billingId: string }> {
  const response = await fetch(`${baseUrl}/api/cameras/plansV2`, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new Error(`GET /api/cameras/plansV2 answered ${response.status}`);
  const body = (await response.json()) as {
    cameras?: { SIM_ICCID?: string; STRIPE_CUSTOMER_ID?: string | null }[];
  };
  const camera = body.cameras?.find((candidate) => candidate.STRIPE_CUSTOMER_ID);
  if (!camera?.SIM_ICCID || !camera.STRIPE_CUSTOMER_ID) {
    throw new Error('demo@example.com has no camera with a plan for /camera/{id}');
  }
  return { cameraId: camera.SIM_ICCID, billingId: camera.STRIPE_CUSTOMER_ID };
}

interface PageResult {
  page: string;
  url: string;
  runs: RunSummary[];
  failures: string[];
}

/** How the browser reaches the portal: the production front, or the portal's own port. */
type Way = 'front' | 'direct';
const directSuffix = ' (HTTP/1.1 direct)';

const scenario: Scenario = {
  name,
  async run(context) {
    const runCount = Math.max(1, Number(process.env.BENCH_LIGHTHOUSE_RUNS ?? 3) || 3);
    const { cameraId, billingId } = await firstCamera(context.baseUrl, context.customerToken);
    // Every signed-in page: at least 95 with LCP within 1.5 s (issue 25 item 3).
    const signedIn = (label: string, path: string): Page => ({
      label,
      path,
      isSignedIn: true,
      performanceAtLeast: 95,
      lcpAtMostMs: 1500,
    });
    const allPages: Page[] = [
      { label: '/', path: '/', isSignedIn: false, performanceAtLeast: 98, lcpAtMostMs: 1500 },
      signedIn('/dashboard', '/dashboard'),
      signedIn('/camera/{id}', `/camera/${encodeURIComponent(cameraId)}`),
      { label: '/activate', path: '/activate', isSignedIn: false, performanceAtLeast: 95 },
      { label: '/postcode', path: '/postcode', isSignedIn: false, performanceAtLeast: 95 },
      signedIn('/livestreaming', '/livestreaming'),
      signedIn('/subscription/{id}', `/subscription/${encodeURIComponent(billingId)}`),
      signedIn('/invoices/{id}', `/invoices/${encodeURIComponent(billingId)}`),
      signedIn('/team', '/team'),
      signedIn('/activity', '/activity'),
    ];
    const picked = (process.env.BENCH_LIGHTHOUSE_PAGES ?? '')
      .split(',')
      .map((label) => label.trim())
      .filter(Boolean);
    const pages = picked.length ? allPages.filter((page) => picked.includes(page.label)) : allPages;

    const metrics: Metric[] = [];
    const results: PageResult[] = [];
    const ways = (process.env.BENCH_LIGHTHOUSE_WAYS ?? 'front,direct')
      .split(',')
      .map((way) => way.trim())
      .filter((way): way is Way => way === 'front' || way === 'direct');
    let isWarm = false;
    for (const way of ways) {
      if (way === 'direct') {
        await measureAll(context.baseUrl, way);
        continue;
      }
      const unavailable = frontUnavailable();
      if (unavailable) {
        context.log(`not measured through the front: ${unavailable}`);
        for (const page of pages) {
          metrics.push(
            metric(
              name,
              `${page.label} performance (mobile)`,
              null,
              'score',
              { atLeast: page.performanceAtLeast },
              unavailable,
            ),
          );
        }
        continue;
      }
      const front = await startFront(context.baseUrl);
      try {
        await measureAll(front.baseUrl, way);
      } finally {
        await front.stop();
      }
    }
    return { metrics, details: { pages: results } };

    async function measureAll(origin: string, way: Way): Promise<void> {
      // Lighthouse runs in this process, beside the browser it measures: its first run compiles its
      // own code on the same two cores while the page loads (decision 176). One run, not counted,
      // before the measured ones.
      const first = pages[0];
      if (first && !isWarm) {
        isWarm = true;
        const started = Date.now();
        try {
          await runOnce(
            `${origin}${first.path}`,
            first.isSignedIn ? context.customerToken : undefined,
          );
          context.log(
            `warm-up run on ${first.label} in ${((Date.now() - started) / 1000).toFixed(0)} s (not counted)`,
          );
        } catch (error) {
          context.log(
            `the warm-up run failed (${error instanceof Error ? error.message : String(error)}); measuring anyway`,
          );
        }
      }
      for (const page of pages) {
        const url = `${origin}${page.path}`;
        // Through the front, the page as named and judged; straight to the port, beside it.
        const pageLabel = way === 'front' ? page.label : `${page.label}${directSuffix}`;
        const token = page.isSignedIn ? context.customerToken : undefined;
        const runs: RunSummary[] = [];
        const failures: string[] = [];
        const maxFailures = 2;
        try {
          await warmUpServer(url, token);
        } catch (error) {
          context.log(
            `${pageLabel}: the warm-up load failed (${error instanceof Error ? error.message : String(error)}); measuring anyway`,
          );
        }
        while (runs.length < runCount && failures.length <= maxFailures) {
          const started = Date.now();
          try {
            const summary = await runOnce(url, token);
            runs.push(summary);
            context.log(
              `${pageLabel} run ${runs.length}/${runCount} in ` +
                `${((Date.now() - started) / 1000).toFixed(0)} s: performance ` +
                `${summary.performance}, accessibility ${summary.accessibility}, LCP ` +
                `${Math.round(summary.timingsMs['largest-contentful-paint'] ?? 0)} ms`,
            );
            for (const audit of summary.failedAccessibilityAudits) {
              context.log(`  accessibility audit failed: ${audit}`);
            }
            for (const warning of summary.runWarnings) context.log(`  warning: ${warning}`);
            if (runs.length === 1) {
              for (const opportunity of summary.opportunities) {
                context.log(`  opportunity: ${opportunity}`);
              }
            }
            for (const line of summary.lcpGraph) context.log(`  LCP graph: ${line}`);
          } catch (error) {
            failures.push(error instanceof Error ? (error.stack ?? error.message) : String(error));
            const message = error instanceof Error ? error.message : String(error);
            const retry = failures.length <= maxFailures ? '; trying again' : '; giving up';
            context.log(`${pageLabel}: Lighthouse failed: ${message}${retry}`);
          }
        }
        results.push({ page: pageLabel, url, runs, failures });
        const firstLine = (text: string | undefined) => text?.split('\n')[0] ?? '';
        const note =
          runs.length === 0
            ? `Lighthouse failed: ${firstLine(failures.at(-1))}`
            : failures.length
              ? `median of ${runs.length} runs; ${failures.length} failed (${firstLine(failures[0])})`
              : undefined;
        const of = (pick: (run: RunSummary) => number | null) => median(runs.map(pick));
        const label = (what: string) => `${pageLabel} ${what}`;
        const isJudged = way === 'front';
        metrics.push(
          metric(
            name,
            label('performance (mobile)'),
            of((run) => run.performance),
            'score',
            isJudged ? { atLeast: page.performanceAtLeast } : undefined,
            note,
          ),
          metric(
            name,
            label('accessibility'),
            of((run) => run.accessibility),
            'score',
            isJudged ? { atLeast: 100 } : undefined,
            note,
          ),
        );
        for (const [id, timing] of Object.entries(timingAudits)) {
          // The first screen gets every timing; the other pages the two that move their score.
          if (
            page.label !== '/' &&
            id !== 'largest-contentful-paint' &&
            id !== 'total-blocking-time'
          ) {
            continue;
          }
          const value = of((run) => run.timingsMs[id] ?? null);
          const target =
            isJudged && id === 'largest-contentful-paint' && page.lcpAtMostMs !== undefined
              ? { atMost: page.lcpAtMostMs }
              : undefined;
          metrics.push(
            metric(name, label(timing), value === null ? null : Math.round(value), 'ms', target),
          );
        }
        const cls = of((run) => run.cumulativeLayoutShift);
        metrics.push(metric(name, label('CLS'), cls === null ? null : Number(cls.toFixed(3)), ''));
        metrics.push(
          metric(
            name,
            label('JS transferred'),
            of((run) => run.scriptTransferBytes),
            'bytes',
          ),
        );
      }
    }
  },
};

export default scenario;
