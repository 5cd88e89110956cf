/**
 * Draws the web app manifest's icons (public/icons/*.png) from public/logo.svg in Chromium, so
 * they stay the logo: `npx tsx apps/web/scripts/make-icons.ts` after the logo changes, then
 * commit the PNGs (decision 117). "any" icons are the logo as it is, rounded corners and all;
 * "maskable" ones (and Apple's touch icon, which iOS rounds itself) fill the square with the
 * logo's green and keep the camera inside the central 80 % circle a launcher may cut out.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { chromium } from 'playwright-core';

const publicDir = path.resolve(import.meta.dirname, '../public');
const logo = await fs.readFile(path.join(publicDir, 'logo.svg'), 'utf8');
const logoUrl = `data:image/svg+xml;base64,${Buffer.from(logo).toString('base64')}`;

const icons = [
  { file: 'icon-192.png', size: 192, isMaskable: false },
  { file: 'icon-512.png', size: 512, isMaskable: false },
  { file: 'maskable-192.png', size: 192, isMaskable: true },
  { file: 'maskable-512.png', size: 512, isMaskable: true },
  { file: 'apple-touch-icon-180.png', size: 180, isMaskable: true },
];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu'],
});
try {
  const page = await browser.newPage();
  await fs.mkdir(path.join(publicDir, 'icons'), { recursive: true });
  for (const { file, size, isMaskable } of icons) {
    // Maskable: the logo at 76 % on its own green, so its rounded corners vanish into the fill.
    const logoSize = isMaskable ? Math.round(size * 0.76) : size;
    await page.setViewportSize({ width: size, height: size });
    await page.setContent(
      `<html><body style="margin:0;width:${size}px;height:${size}px;display:grid;place-items:center;background:${
        isMaskable ? '#2f6b3a' : 'transparent'
      }"><img src="${logoUrl}" width="${logoSize}" height="${logoSize}"></body></html>`,
    );
    await page.screenshot({
      path: path.join(publicDir, 'icons', file),
      omitBackground: !isMaskable,
    });
    process.stdout.write(`public/icons/${file} (${size} px${isMaskable ? ', maskable' : ''})\n`);
  }
} finally {
  await browser.close();
}
