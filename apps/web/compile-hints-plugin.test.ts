import { describe, expect, it } from 'vitest';
import { compileHint, compileHintMaxBytes, compileHints } from './compile-hints-plugin.ts';

type Output = {
  type: 'chunk' | 'asset';
  fileName?: string;
  code?: string;
  map?: { mappings: string } | null;
  source?: string;
};

/** Runs the plugin's generateBundle on a bundle of the given outputs, as Vite would. */
function generate(bundle: Record<string, Output>): Record<string, Output> {
  const hook = compileHints().generateBundle as unknown as {
    order: string;
    handler: (options: unknown, bundle: Record<string, Output>) => void;
  };
  expect(hook.order).toBe('post');
  hook.handler({}, bundle);
  return bundle;
}

describe('compile hints', () => {
  it('puts the hint on the first line of each chunk, and moves its source map down a line', () => {
    const { entry, page } = generate({
      entry: { type: 'chunk', code: 'import"./page.js";x()', map: { mappings: 'AAAA,CAAC' } },
      page: { type: 'chunk', code: 'export const y=1', map: null },
    });
    expect(entry!.code).toBe(`${compileHint}\nimport"./page.js";x()`);
    expect(entry!.map!.mappings).toBe(';AAAA,CAAC');
    expect(page!.code!.split('\n')[0]).toBe('//# allFunctionsCalledOnLoad');
  });

  it('moves the source map file Rolldown has already put in the bundle, which is what it writes', () => {
    const bundle = generate({
      'assets/page.js': {
        type: 'chunk',
        fileName: 'assets/page.js',
        code: 'export const y=1',
        map: { mappings: 'AAAA' },
      },
      'assets/page.js.map': {
        type: 'asset',
        fileName: 'assets/page.js.map',
        source: JSON.stringify({ version: 3, sources: ['page.ts'], mappings: 'AAAA,CAAC' }),
      },
    });
    const written = JSON.parse(bundle['assets/page.js.map']!.source!) as Record<string, unknown>;
    expect(written).toEqual({ version: 3, sources: ['page.ts'], mappings: ';AAAA,CAAC' });
    expect(bundle['assets/page.js']!.map!.mappings).toBe(';AAAA');
  });

  it('leaves large chunks, which run little of themselves at once, and assets alone', () => {
    const large = 'a'.repeat(compileHintMaxBytes + 1);
    const { player, style } = generate({
      player: { type: 'chunk', code: large, map: null },
      style: { type: 'asset' },
    });
    expect(player!.code).toBe(large);
    expect(style).toEqual({ type: 'asset' });
  });
});
