import { chromium } from '@playwright/test';
const base = 'http://localhost:4001';
async function token(email: string) {
  const t0 = Date.now();
  await fetch(`${base}/api/auth/request-login`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.' + (Date.now() % 200) }, body: JSON.stringify({ email }) });
  await new Promise((r) => setTimeout(r, 300));
  const [m] = await (await fetch(`${base}/dev/outbox?to=${email}&limit=1`)).json();
  const login = /\/login\/([A-Za-z0-9_-]+)/.exec(m.text)![1];
  const s = await (await fetch(`${base}/api/auth/login?token=${login}`, { headers: { 'x-forwarded-for': '198.51.100.9' } })).json();
  return s.token as string;
}
const t = process.env.TOKEN ?? await token('demo@example.com');
console.log('TOKEN', t);
const real = await (await fetch(`${base}/api/cameras/plansV2`, { headers: { authorization: `Bearer ${t}` } })).json();
const cameras = Array.from({ length: 1000 }, (_, i) => ({ ...real.cameras[i % 10], SIM_ICCID: `8944990000${String(i).padStart(9, '0')}`, nicknameInDatabase: `Camera ${i + 1}` }));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
for (const variant of (process.env.VARIANTS ?? 'default').split(',')) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
  await page.route('**/api/cameras/plansV2', (route) => route.fulfill({ json: { ...real, cameras } }));
  await page.goto(base + '/');
  await page.evaluate((v) => localStorage.setItem('token', v), t);
  await page.goto(base + '/activate');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).waitFor();
  if (variant === 'nocv') await page.addStyleTag({ content: 'li { content-visibility: visible !important; }' });
  if (variant === 'nobilling') await page.addStyleTag({ content: 'dialog { display: none !important }' });
  const session = await page.context().newCDPSession(page);
  await session.send('Performance.enable');
  const get = async () => Object.fromEntries(((await session.send('Performance.getMetrics')) as any).metrics.map((m: any) => [m.name, m.value]));
  await page.evaluate(() => performance.clearMarks());
  if (process.env.TRACE) await browser.startTracing(page, { path: '/tmp/fc3/probe/trace.json', categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline.stack'] });
  if (process.env.PROFILE) { await session.send('Profiler.enable'); await session.send('Profiler.setSamplingInterval', { interval: 100 }); await session.send('Profiler.start'); }
  const before = await get();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click();
  await page.getByRole('article', { name: 'Camera 1000' }).waitFor({ state: 'attached' });
  await page.waitForTimeout(300);
  if (process.env.TRACE) await browser.stopTracing();
  const after = await get();
  if (process.env.PROFILE) {
    const { profile } = (await session.send('Profiler.stop')) as any;
    const self = new Map<string, number>();
    const byId = new Map(profile.nodes.map((n: any) => [n.id, n]));
    const dt = profile.timeDeltas as number[];
    profile.samples.forEach((id: number, i: number) => { const n: any = byId.get(id); const key = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber}`; self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0)); });
    console.log([...self].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `${(v / 1000).toFixed(1)}ms ${k}`).join('\n'));
  }
  const timing = await page.evaluate(() => {
    const mark = performance.getEntriesByName('camera-grid:rendered').at(-1);
    const r = performance.getEntriesByType('resource').filter((e) => e.name.includes('plansV2')).at(-1) as PerformanceResourceTiming;
    return { mark: mark?.startTime, end: r?.responseEnd };
  });
  console.log(variant, 'render', (timing.mark! - timing.end!).toFixed(0), 'ms', 'layouts', after.LayoutCount - before.LayoutCount, 'recalc', after.RecalcStyleCount - before.RecalcStyleCount, 'layoutDur', (after.LayoutDuration - before.LayoutDuration).toFixed(3), 'scriptDur', (after.ScriptDuration - before.ScriptDuration).toFixed(3), 'taskDur', (after.TaskDuration-before.TaskDuration).toFixed(3));
  await page.close();
}
await browser.close();
