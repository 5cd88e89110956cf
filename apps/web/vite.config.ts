import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { precompress } from './precompress-plugin.ts';

// The API server; in production it serves the built SPA itself, so only `vite dev` needs this.
const devApiTarget = 'http://localhost:3000';

export default defineConfig({
  plugins: [react(), precompress()],
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
});
