/**
 * The high-contrast dark theme is written twice in global.css (decision 125): once for a farmer
 * who chose it (`[data-theme='dark']`) and once for a phone set to dark mode or more contrast
 * (the media query), because plain CSS cannot apply one block under either condition. This test
 * keeps the two one set (decision 170): the same tokens with the same values, and a dark value for
 * every colour token of the light theme.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The test runs in a browser-like environment: the file is found from the web app's folder.
const css = fs.readFileSync(path.resolve(__dirname, 'global.css'), 'utf8');

/** The custom properties declared in the first block after `opening`, in order. */
function tokensAfter(opening: string): [name: string, value: string][] {
  const start = css.indexOf(opening);
  if (start < 0) throw new Error(`global.css has no ${opening}`);
  const body = css.slice(css.indexOf('{', start) + 1, css.indexOf('}', start));
  return [...body.matchAll(/(--[\w-]+)\s*:\s*([^;]+);/g)].map(
    (match) => [match[1]!, match[2]!.replace(/\s+/g, ' ').trim()] as [string, string],
  );
}

const light = tokensAfter(':root {');
const chosenDark = tokensAfter(":root[data-theme='dark'] {");
const systemDark = tokensAfter(":root:not([data-theme='light']) {");

describe('the dark theme (decisions 125 and 170)', () => {
  it('is the same whether chosen or followed from the system', () => {
    expect(chosenDark.length).toBeGreaterThan(20);
    expect(systemDark).toEqual(chosenDark);
    expect(css).toContain(
      "@media (prefers-color-scheme: dark), (prefers-contrast: more) {\n  :root:not([data-theme='light']) {",
    );
  });

  it('gives every colour of the light theme a dark value', () => {
    const darkNames = new Set(chosenDark.map(([name]) => name));
    const lightColours = light
      .map(([name]) => name)
      .filter((name) => name.startsWith('--color-') || name.startsWith('--shadow-'));
    expect(lightColours.filter((name) => !darkNames.has(name))).toEqual([]);
  });
});
