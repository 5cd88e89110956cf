/**
 * Preact with its React compatibility layer in place of React and React DOM (decision 088): the
 * same API for our code and for TanStack Query, react-toastify and react-chartjs-2,
 * at about 10 KB gzip instead of 67. The build and `vite dev` resolve these imports through
 * `vite.config.ts`, the component tests through `vitest.config.ts` and, for the libraries Node
 * loads itself, `src/test/preact-in-node.ts`: what is tested is what ships. TypeScript keeps
 * checking against React's types (`@types/react`), the API that compat implements.
 */
export const reactToPreact: Readonly<Record<string, string>> = {
  react: 'preact/compat',
  'react-dom': 'preact/compat',
  'react-dom/client': 'preact/compat/client',
  'react-dom/test-utils': 'preact/test-utils',
  'react/jsx-runtime': 'preact/compat/jsx-runtime',
  'react/jsx-dev-runtime': 'preact/compat/jsx-dev-runtime',
};

/** The same, as exact-match aliases for Vite. */
export const preactCompatAliases = Object.entries(reactToPreact).map(([name, replacement]) => ({
  find: new RegExp(`^${name.replace(/[/-]/g, '\\$&')}$`),
  replacement,
}));
