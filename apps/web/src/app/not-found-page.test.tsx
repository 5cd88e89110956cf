import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderRoute } from '../test/test-utils.tsx';

describe('Not-found page', () => {
  it('says the page does not exist and links to /', async () => {
    renderRoute('/no/such/page');

    expect(
      await screen.findByText('Sorry, the page you are looking for does not exist.'),
    ).toBeDefined();
    expect(screen.getByRole('link', { name: 'Go to the home page' }).getAttribute('href')).toBe(
      '/',
    );
  });
});
