/**
 * Builds the SPA (apps/web/dist) so the bundle and Lighthouse scenarios measure the current
 * source, not a stale build. BENCH_SKIP_BUILD=1 reuses an existing build.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startProcess } from './processes.ts';

export async function buildWeb(rootDir: string, log: (message: string) => void): Promise<void> {
  const indexPath = path.join(rootDir, 'apps/web/dist/index.html');
  if (process.env.BENCH_SKIP_BUILD === '1' && fs.existsSync(indexPath)) {
    log('Reusing apps/web/dist (BENCH_SKIP_BUILD=1)');
    return;
  }
  log('Building the web app (npm run build -w @farmcam/web)...');
  const started = Date.now();
  const build = startProcess({
    name: 'web build',
    command: 'npm',
    args: ['run', 'build', '-w', '@farmcam/web'],
    cwd: rootDir,
  });
  const timer = setTimeout(() => void build.stop(), 5 * 60_000);
  const { code, signal } = await build.exited;
  clearTimeout(timer);
  await build.stop();
  if (code !== 0 || !fs.existsSync(indexPath)) {
    throw new Error(
      `The web build failed (code ${code}, signal ${signal}). Its last output:\n${build.output()}`,
    );
  }
  log(`Built the web app in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
