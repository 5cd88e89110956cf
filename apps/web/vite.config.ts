import { createRequire } from 'node:module';
import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { precompress } from './precompress-plugin.ts';
import { preactCompatAliases } from './preact-compat.ts';
import { prerenderPages } from './prerender-plugin.ts';

// React Router publishes its build without development warnings apart from the one its package
// exports name; the build uses that one (the same code less the warnings), tests and `vite dev`
// keep the warnings (decision 083).
const reactRouterDist = path.join(
  path.dirname(createRequire(import.meta.url).resolve('react-router/package.json')),
  'dist/production',
);

// The API server; in production it serves the built SPA itself, so only `vite dev` needs this.
const devApiTarget = 'http://localhost:3000';

export default defineConfig(({ command }) => ({
  // React Fast Refresh patches React's internals, which Preact does not have: no component is
  // wrapped for it, so an edit under `vite dev` reloads the page instead.
  plugins: [react({ refreshExclude: /./ }), prerenderPages(), precompress()],
  resolve: {
    alias:
      command === 'build'
        ? [
            ...preactCompatAliases,
            { find: /^react-router$/, replacement: path.join(reactRouterDist, 'index.mjs') },
            {
              find: /^react-router\/dom$/,
              replacement: path.join(reactRouterDist, 'dom-export.mjs'),
            },
          ]
        : preactCompatAliases,
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Every browser the portal supports preloads modules natively; the polyfill is dead weight.
    modulePreload: { polyfill: false },
    rolldownOptions: {
      onwarn(warning, warn) {
        // React Router reads React's `useOptimistic` (React 19) and falls back to a plain value
        // when it is missing, as it is in preact/compat: expected, not a problem (decision 088).
        const isRouterOptimistic =
          warning.code === 'IMPORT_IS_UNDEFINED' && warning.message.includes('useOptimistic');
        if (!isRouterOptimistic) warn(warning);
      },
    },
  },
  server: {
    proxy: {
      '/api': devApiTarget,
      '/dev': devApiTarget,
    },
  },
}));
