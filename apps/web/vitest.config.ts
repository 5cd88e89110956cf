import react from '@vitejs/plugin-react';
import { defineProject } from 'vitest/config';
import { preactCompatAliases } from './preact-compat.ts';

export default defineProject({
  plugins: [react()],
  // Our code's imports of React go to Preact here as in the build; the libraries in node_modules,
  // which Node loads itself, are redirected by src/test/preact-in-node.ts.
  resolve: { alias: preactCompatAliases },
  test: {
    name: 'web',
    environment: 'happy-dom',
    setupFiles: ['./src/test/setup-tests.ts'],
    restoreMocks: true,
    unstubGlobals: true,
  },
});
