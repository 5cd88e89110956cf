// First: the libraries imported below and by the tests must find Preact, not React.
import './preact-in-node.ts';
import { cleanup } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { authStore } from '../lib/auth-store.ts';
import { queryClient } from '../lib/query-client.ts';

// House rule: an unexpected console.error (a React warning, an unhandled failure) fails the test.
let consoleErrors: unknown[][] = [];

beforeEach(() => {
  consoleErrors = [];
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    consoleErrors.push(args);
  });
});

afterEach(() => {
  cleanup();
  authStore.clear();
  queryClient.clear();
  window.localStorage.clear();
  if (consoleErrors.length > 0) {
    const messages = consoleErrors.map((args) => args.map(String).join(' ')).join('\n');
    throw new Error(`Unexpected console.error:\n${messages}`);
  }
});
