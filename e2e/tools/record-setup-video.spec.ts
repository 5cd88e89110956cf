import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test } from '../fixtures/portal.ts';
import { expectVideoPlaying } from '../fixtures/video.ts';

/**
 * Makes the setup video the marketing page shows, from the product itself: run with
 * `bash scripts/e2e.sh -c playwright.tools.config.ts` (docs/decisions/045). Chromium's screencast gives the frames (Playwright's
 * own video recorder needs a browser download we cannot make here); Debian's ffmpeg encodes them.
 * Not part of the test suite (its own config): it rewrites a file of the web app.
 */
test.describe('setup video', () => {
  test('records the setup journey into apps/web/public/media', async ({
    page,
    signIn,
  }, testInfo) => {
    test.setTimeout(240_000);
    await page.setViewportSize({ width: 1280, height: 720 });
    await signIn('demo@example.com');
    await page.goto('/livestreaming/setup');
    await expect(page.getByRole('radio', { name: /Calving pen/ })).toBeVisible();

    const frames: { data: string; timestamp: number }[] = [];
    const screencast = await page.context().newCDPSession(page);
    screencast.on('Page.screencastFrame', (frame) => {
      frames.push({ data: frame.data, timestamp: frame.metadata.timestamp ?? Date.now() / 1000 });
      void screencast
        .send('Page.screencastFrameAck', { sessionId: frame.sessionId })
        .catch(() => undefined);
    });
    await screencast.send('Page.startScreencast', {
      format: 'jpeg',
      quality: 85,
      maxWidth: 1280,
      maxHeight: 720,
    });
    const pause = (milliseconds = 1500) => page.waitForTimeout(milliseconds);

    await pause();
    await page.getByRole('radio', { name: /Calving pen/ }).check();
    await pause();
    await page.getByRole('button', { name: 'Set Up Camera' }).click();
    await expect(page.getByRole('heading', { name: 'Configure Livestreaming' })).toBeVisible({
      timeout: 20_000,
    });
    await pause(2500);
    await page.getByRole('button', { name: 'Saturday' }).click();
    await pause(700);
    await page.getByRole('button', { name: 'Sunday' }).click();
    await pause();
    await page.getByRole('button', { name: 'Start Livestream' }).scrollIntoViewIfNeeded();
    await pause(1000);
    await page.getByRole('button', { name: 'Start Livestream' }).click();
    await expect(page.getByRole('heading', { name: 'Live Stream Active' })).toBeVisible({
      timeout: 20_000,
    });
    await expectVideoPlaying(page.getByTestId('livestream-preview'));
    await pause(3000);
    await page
      .getByRole('heading', { name: 'Code for Your Website Manager' })
      .scrollIntoViewIfNeeded();
    await pause();
    await page.getByRole('button', { name: 'Copy Code' }).click();
    await pause(2500);
    await screencast.send('Page.stopScreencast');
    // The last frame holds until the end of the video.
    frames.push({ data: frames.at(-1)!.data, timestamp: frames.at(-1)!.timestamp + 1.5 });

    const folder = testInfo.outputPath('frames');
    await fs.promises.mkdir(folder, { recursive: true });
    const list: string[] = ['ffconcat version 1.0'];
    for (const [index, frame] of frames.entries()) {
      const name = `frame-${String(index).padStart(5, '0')}.jpg`;
      await fs.promises.writeFile(path.join(folder, name), Buffer.from(frame.data, 'base64'));
      const next = frames[index + 1];
      list.push(
        `file ${name}`,
        `duration ${next ? Math.max(0.01, next.timestamp - frame.timestamp).toFixed(3) : '0.5'}`,
      );
    }
    await fs.promises.writeFile(path.join(folder, 'frames.txt'), `${list.join('\n')}\n`);

    const target = path.resolve(
      path.dirname(fileURLToPath(import.meta.url)),
      '../../apps/web/public/media/livestream-setup.mp4',
    );
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    await promisify(execFile)('ffmpeg', [
      '-y',
      '-loglevel',
      'error',
      '-f',
      'concat',
      '-safe',
      '0',
      '-i',
      path.join(folder, 'frames.txt'),
      '-vf',
      'fps=15,scale=960:-2',
      '-c:v',
      'libx264',
      '-preset',
      'slow',
      '-crf',
      '28',
      '-pix_fmt',
      'yuv420p',
      '-movflags',
      '+faststart',
      target,
    ]);
    expect((await fs.promises.stat(target)).size).toBeGreaterThan(10_000);
  });
});
