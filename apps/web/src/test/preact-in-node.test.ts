import { createRequire } from 'node:module';
import * as compat from 'preact/compat';
import * as React from 'react';
import * as ReactDomClient from 'react-dom/client';
import { describe, expect, it } from 'vitest';

// The component tests are only worth their name if they render with what ships (decision 088).
describe('React in the tests is Preact, as in the build', () => {
  it('for our code, through the Vite aliases', () => {
    expect(React.useState).toBe(compat.useState);
    expect(typeof ReactDomClient.createRoot).toBe('function');
    expect(React.version).toBe(compat.version);
  });

  it('for the libraries Node loads itself, React Testing Library `require`s included', () => {
    const require = createRequire(import.meta.url);
    const required = require('react') as typeof compat;
    expect(required.useState).toBe(compat.useState);
    const { act } = require('react-dom/test-utils') as { act: unknown };
    expect(typeof act).toBe('function');
  });
});
