import fs from 'node:fs';
import path from 'node:path';
import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { MemoryRouter } from '../../lib/router/index.ts';
import { BrandLink } from './brand-link.tsx';

/** The shapes of an SVG document, each as its tag and attributes in order. */
function shapes(svg: Element): string[] {
  return [...svg.querySelectorAll('rect, path, circle')].map(
    (shape) =>
      `${shape.tagName.toLowerCase()} ${[...shape.attributes]
        .map((attribute) => `${attribute.name}=${attribute.value}`)
        .join(' ')}`,
  );
}

describe('the brand link', () => {
  it('draws the logo of public/logo.svg in the page, with no request of its own (decision 175)', () => {
    const file = fs.readFileSync(path.join(__dirname, '../../../public/logo.svg'), 'utf8');
    const logo = new DOMParser().parseFromString(file, 'image/svg+xml').documentElement;
    const { container } = render(
      <MemoryRouter>
        <BrandLink to="/dashboard" />
      </MemoryRouter>,
    );

    const drawn = container.querySelector('a[href="/dashboard"] svg');
    expect(drawn).not.toBeNull();
    expect(drawn!.getAttribute('aria-hidden')).toBe('true');
    expect(shapes(drawn!)).toEqual(shapes(logo));
    expect(container.querySelector('img')).toBeNull();
  });
});
