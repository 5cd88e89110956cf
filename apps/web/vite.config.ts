import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { compileHints } from './compile-hints-plugin.ts';
import { precompress } from './precompress-plugin.ts';
import { preactCompatAliases } from './preact-compat.ts';
import { prerenderPages } from './prerender-plugin.ts';
import { manifestPath } from './src/lib/manifest-path.ts';

/**
 * What makes the portal installable (decision 117): its names, the icons a phone or a desktop
 * asks for (192 and 512 px, and maskable ones a launcher may cut into a circle; drawn by
 * scripts/make-icons.ts), the colours of the splash screen and title bar, and the page it opens
 * at: the cameras, where a signed-out person is sent to sign in.
 */
const webAppManifest = {
  id: '/',
  name: 'Farmcam Portal',
  short_name: 'Farmcam',
  description: 'Your farm cameras, their SIM data plans, invoices and livestreams.',
  lang: 'en-GB',
  start_url: '/dashboard',
  scope: '/',
  display: 'standalone' as const,
  orientation: 'any' as const,
  theme_color: '#2f6b3a',
  background_color: '#f4f6f2',
  icons: [
    { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
    { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
    { src: '/icons/maskable-192.png', sizes: '192x192', type: 'image/png', purpose: 'maskable' },
    { src: '/icons/maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
  ],
};

// The API server; in production it serves the built SPA itself, so only `vite dev` needs this.
const devApiTarget = 'http://localhost:3000';

export default defineConfig({
  // React Fast Refresh patches React's internals, which Preact does not have: no component is
  // wrapped for it, so an edit under `vite dev` reloads the page instead.
  plugins: [
    react({ refreshExclude: /./ }),
    prerenderPages(),
    compileHints(),
    // The web app manifest and the service worker (decision 117); registered by the app itself
    // (lib/install.ts) in the build only, never under `vite dev`.
    VitePWA({
      strategies: 'injectManifest',
      srcDir: 'service-worker',
      filename: 'sw.ts',
      injectRegister: false,
      manifestFilename: manifestPath.slice(1),
      manifest: webAppManifest,
      injectManifest: {
        // The shell, the landing page, every script and style sheet, the logo and the icons;
        // not the livestream set-up video (public/media), which plays from the network.
        globPatterns: ['**/*.{html,js,css,svg,png,webmanifest}'],
        globIgnores: ['media/**'],
        // Chart.js's chunk is the largest; everything the app can load must fit.
        maximumFileSizeToCacheInBytes: 1024 * 1024,
      },
      devOptions: { enabled: false },
    }),
    precompress(),
  ],
  resolve: {
    alias: preactCompatAliases,
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Every browser the portal supports preloads modules natively; the polyfill is dead weight.
    modulePreload: { polyfill: false },
    // Few files on a first visit (decision 173): Rolldown left what the entry shares with pages
    // in four files beside it, and gave each component two pages share a file (and a style sheet)
    // of its own, so the dashboard's first visit asked for 17 files over a phone's six
    // connections. Now: the entry is one file, what two or more pages share is one more (the
    // video player and the chart library stay apart, loaded only where they are needed), and each
    // page is its own.
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: 'app', tags: ['$initial'], priority: 20 },
            { name: 'shared', minShareCount: 2, maxModuleSize: 40_000, priority: 10 },
          ],
        },
      },
    },
  },
  server: {
    proxy: {
      '/api': devApiTarget,
      '/dev': devApiTarget,
    },
  },
});
