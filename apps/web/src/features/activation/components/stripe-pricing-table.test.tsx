import { render } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { StripePricingTable, stripePricingTableScript } from './stripe-pricing-table.tsx';

/** Catches the script Stripe's element would load, so the test decides whether it loaded. */
function interceptScript() {
  const scripts: HTMLScriptElement[] = [];
  vi.spyOn(document.head, 'append').mockImplementation((...nodes) => {
    scripts.push(...(nodes as HTMLScriptElement[]));
  });
  return scripts;
}

describe('StripePricingTable', () => {
  it('loads Stripe’s script once and gives the element the table, key, ICCID and session', async () => {
    const scripts = interceptScript();
    const { container } = render(
      <StripePricingTable
        pricingTableId="prctbl_uk"
        publishableKey="pk_test_1"
        iccid="8944110000000009017"
        email="a@b.co"
        customerSessionSecret="cuss_secret_1"
      />,
    );
    expect(scripts).toHaveLength(1);
    expect(scripts[0]!.src).toBe(stripePricingTableScript);
    scripts[0]!.onload?.(new Event('load'));
    const element = await vi.waitFor(() => {
      const found = container.querySelector('stripe-pricing-table');
      if (!found) throw new Error('not yet');
      return found;
    });
    expect(element.getAttribute('pricing-table-id')).toBe('prctbl_uk');
    expect(element.getAttribute('publishable-key')).toBe('pk_test_1');
    expect(element.getAttribute('client-reference-id')).toBe('8944110000000009017');
    expect(element.getAttribute('customer-session-client-secret')).toBe('cuss_secret_1');
    // Stripe takes the e-mail from the session's customer and refuses both.
    expect(element.hasAttribute('customer-email')).toBe(false);
  });

  it('gives the e-mail when there is no customer session', async () => {
    const scripts = interceptScript();
    render(
      <StripePricingTable
        pricingTableId="prctbl_ie"
        publishableKey="pk_test_1"
        iccid="8944110000000009017"
        email="a@b.co"
        customerSessionSecret={null}
      />,
    );
    scripts[0]?.onload?.(new Event('load'));
    const element = await vi.waitFor(() => {
      const found = document.querySelector('stripe-pricing-table');
      if (!found) throw new Error('not yet');
      return found;
    });
    expect(element.getAttribute('customer-email')).toBe('a@b.co');
    expect(element.hasAttribute('customer-session-client-secret')).toBe(false);
  });

  it('says so when Stripe’s script cannot be loaded', async () => {
    vi.resetModules();
    const fresh = await import('./stripe-pricing-table.tsx');
    const scripts = interceptScript();
    const view = render(
      <fresh.StripePricingTable
        pricingTableId="prctbl_uk"
        publishableKey="pk_test_1"
        iccid="8944110000000009017"
        email="a@b.co"
        customerSessionSecret={null}
      />,
    );
    scripts[0]!.onerror?.(new Event('error'));
    expect((await view.findByRole('alert')).textContent).toMatch(/plans could not be loaded/);
  });
});
