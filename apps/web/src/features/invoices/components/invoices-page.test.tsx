import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { authStore } from '../../../lib/auth-store.ts';
import { jsonResponse, mockFetch, renderRoute } from '../../../test/test-utils.tsx';

const invoice = (overrides: Record<string, unknown>) => ({
  id: 'in_1234567890ABCDEFGH',
  number: 'FC-1',
  amount_due: 1200,
  amount_paid: 1200,
  currency: 'gbp',
  lines: [{ description: '1 × Light Streaming (at £12.00 / month)' }],
  created_date: '2026-03-01T00:00:00.000Z',
  status: 'paid',
  invoice_pdf: 'http://localhost/billing-engine/invoices/in_1/t/pdf',
  hosted_invoice_url: 'http://localhost/billing-engine/invoices/in_1/t',
  ...overrides,
});

describe('Invoices', () => {
  it('offers Download for paid invoices and a red Pay now for the others', async () => {
    authStore.signIn('customer-token');
    mockFetch((url) => {
      if (url.pathname === '/api/auth/user-data') {
        return jsonResponse(200, {
          data: { email: 'f@example.com', role: 'customer', customerId: 'c1', impersonation: null },
        });
      }
      if (url.pathname === '/api/invoices/fetch-invoices/cus_1') {
        return jsonResponse(200, {
          invoices: [
            invoice({
              id: 'in_OPENOPEN00000001',
              status: 'open',
              amount_paid: 0,
              amount_due: 2000,
            }),
            invoice({}),
          ],
        });
      }
      return jsonResponse(404, { code: 'NOT_FOUND', message: 'Not found' });
    });
    renderRoute('/invoices/cus_1');
    const table = await screen.findByRole('table', { name: 'Invoices' });
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((cell) => cell.textContent),
    ).toEqual(['Amount', 'Plan', 'Created', 'Status', 'Actions']);
    const [, openRow, paidRow] = within(table).getAllByRole('row');
    expect(within(openRow!).getByText('£20.00')).toBeDefined();
    expect(within(openRow!).getByText('Invoice 00000001')).toBeDefined();
    const payNow = within(openRow!).getByRole('link', { name: /Pay now/ });
    expect(payNow.getAttribute('target')).toBe('_blank');
    expect(payNow.getAttribute('href')).toBe('http://localhost/billing-engine/invoices/in_1/t');
    expect(within(paidRow!).getByText('1 March 2026')).toBeDefined();
    expect(
      within(paidRow!)
        .getByRole('link', { name: /Download/ })
        .getAttribute('href'),
    ).toMatch(/\/pdf$/);
  });
});
