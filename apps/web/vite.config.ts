import { createRequire } from 'node:module';
import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { precompress } from './precompress-plugin.ts';

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
  plugins: [react(), precompress()],
  resolve: {
    alias:
      command === 'build'
        ? [
            { find: /^react-router$/, replacement: path.join(reactRouterDist, 'index.mjs') },
            {
              find: /^react-router\/dom$/,
              replacement: path.join(reactRouterDist, 'dom-export.mjs'),
            },
          ]
        : [],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Every browser the portal supports preloads modules natively; the polyfill is dead weight.
    modulePreload: { polyfill: false },
  },
  server: {
    proxy: {
      '/api': devApiTarget,
      '/dev': devApiTarget,
    },
  },
}));
