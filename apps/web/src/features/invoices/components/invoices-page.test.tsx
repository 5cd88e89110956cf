import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { authStore } from '../../../lib/auth-store.ts';
import {
  billingAccountAnswer,
  jsonResponse,
  mockFetch,
  ownerAccess,
  renderRoute,
} from '../../../test/test-utils.tsx';

const invoice = (overrides: Record<string, unknown>) => ({
  id: 'in_1234567890ABCDEFGH',
  number: 'FC-000001',
  amount_due: 1200,
  amount_paid: 1200,
  currency: 'gbp',
  lines: [{ description: '1 × Light Streaming (at £12.00 / month)', amount: 1200 }],
  total: 1200,
  tax: 200,
  credit_notes: [],
  attempt_count: 0,
  next_payment_attempt: null,
  created_date: '2026-03-01T00:00:00.000Z',
  due_date: '2026-03-01',
  status: 'paid',
  status_label: 'Paid',
  status_detail: 'Paid on 1 March 2026.',
  invoice_pdf: 'http://localhost/billing-engine/invoices/in_1/t/pdf',
  hosted_invoice_url: 'http://localhost/billing-engine/invoices/in_1/t',
  is_payable: false,
  ...overrides,
});

function serveInvoices(answer: Record<string, unknown>) {
  authStore.signIn('customer-token');
  mockFetch((url) => {
    const account = billingAccountAnswer(url);
    if (account) return account;
    if (url.pathname === '/api/auth/user-data') {
      return jsonResponse(200, {
        data: {
          email: 'f@example.com',
          role: 'customer',
          customerId: 'c1',
          impersonation: null,
          access: ownerAccess(),
        },
      });
    }
    if (url.pathname === '/api/invoices/fetch-invoices/cus_1') {
      return jsonResponse(200, { credit_balance: 0, currency: 'gbp', ...answer });
    }
    return jsonResponse(404, { code: 'NOT_FOUND', message: 'Not found' });
  });
}

describe('Invoices', () => {
  it('names each status in one word with its due date and cause, and one "Download PDF" (decision 113)', async () => {
    serveInvoices({
      invoices: [
        invoice({
          id: 'in_OPENOPEN00000001',
          status: 'open',
          status_label: 'Unpaid',
          status_detail: 'Your card ending 4242 expired in March 2025: update it to pay £20.00.',
          due_date: '2026-04-01',
          is_payable: true,
          amount_paid: 0,
          amount_due: 2000,
        }),
        invoice({}),
      ],
    });
    renderRoute('/invoices/cus_1');
    const table = await screen.findByRole('table', { name: 'Invoices' });
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((cell) => cell.textContent),
    ).toEqual(['Amount', 'Plan', 'Created', 'Due date', 'Status', 'Actions']);
    const [, openRow, paidRow] = within(table).getAllByRole('row');
    expect(within(openRow!).getByText('£20.00')).toBeDefined();
    expect(within(openRow!).getByText('Invoice FC-000001')).toBeDefined();
    expect(within(openRow!).getByText('1 April 2026')).toBeDefined();
    expect(within(openRow!).getByText('Unpaid')).toBeDefined();
    expect(
      within(openRow!).getByText(
        'Your card ending 4242 expired in March 2025: update it to pay £20.00.',
      ),
    ).toBeDefined();
    expect(within(openRow!).queryByText('open')).toBeNull();
    const payNow = within(openRow!).getByRole('link', { name: /^Pay now/ });
    expect(payNow.getAttribute('target')).toBe('_blank');
    expect(payNow.getAttribute('href')).toBe('http://localhost/billing-engine/invoices/in_1/t');
    expect(within(paidRow!).getAllByText('1 March 2026')).toHaveLength(2);
    expect(within(paidRow!).getByText('Paid')).toBeDefined();
    // The same words whether paid or not, the invoice named for a screen reader.
    for (const row of [openRow!, paidRow!]) {
      const download = within(row).getByRole('link', { name: 'Download PDF of invoice FC-000001' });
      expect(download.textContent).toBe('Download PDF of invoice FC-000001');
      expect(download.getAttribute('href')).toMatch(/\/pdf$/);
    }
  });

  it('offers no Pay now on an invoice that can no longer be paid (canceled after dunning)', async () => {
    serveInvoices({
      invoices: [
        invoice({
          id: 'in_UNCOLLECT0000001',
          status: 'uncollectible',
          status_label: 'Void',
          status_detail: 'Closed unpaid when the plan ended: nothing more will be taken for it.',
          amount_paid: 0,
        }),
      ],
    });
    renderRoute('/invoices/cus_1');
    const table = await screen.findByRole('table', { name: 'Invoices' });
    expect(within(table).getByText('Void')).toBeDefined();
    expect(within(table).queryByText('uncollectible')).toBeNull();
    expect(within(table).queryByRole('link', { name: /Pay now/ })).toBeNull();
  });

  it('shows every line with its amount, a downgrade credit, credit notes and the balance', async () => {
    serveInvoices({
      credit_balance: 1100,
      invoices: [
        invoice({
          id: 'in_RENEWAL000000002',
          number: 'FC-000002',
          amount_due: 0,
          amount_paid: 0,
          total: -1100,
          lines: [
            {
              description: 'Unused time on Heavy Streaming from 1 Mar to 1 Apr 2026',
              amount: -3500,
            },
            {
              description: 'Remaining time on Light Streaming from 1 Mar to 1 Apr 2026',
              amount: 1200,
            },
            { description: '1 × Light Streaming (at £12.00 / month)', amount: 1200 },
          ],
        }),
        invoice({
          credit_notes: [
            {
              id: 'cn_1',
              number: 'FC-000001-CN-01',
              total: 1200,
              refund_amount: 700,
              credit_amount: 500,
              given_back: '£7.00 refunded to your card and £5.00 credited to your balance',
              created_date: '2026-03-02T00:00:00.000Z',
              pdf: 'http://localhost/billing-engine/credit-notes/cn_1/t/pdf',
            },
          ],
        }),
      ],
    });
    renderRoute('/invoices/cus_1');
    const balance = await screen.findByText(/Credit on this camera’s account/);
    expect(balance.textContent).toBe(
      'Credit on this camera’s account: £11.00, taken off the next invoice.',
    );
    const lines = screen.getByRole('list', { name: 'Lines of invoice FC-000002' });
    expect(
      within(lines)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([
      'Unused time on Heavy Streaming from 1 Mar to 1 Apr 2026-£35.00',
      'Remaining time on Light Streaming from 1 Mar to 1 Apr 2026£12.00',
      '1 × Light Streaming (at £12.00 / month)£12.00',
    ]);
    expect(
      screen.getByText(
        /Credit note FC-000001-CN-01: £7\.00 refunded to your card and £5\.00 credited to your balance/,
      ),
    ).toBeDefined();
    expect(
      screen
        .getByRole('link', { name: 'Download PDF of credit note FC-000001-CN-01' })
        .getAttribute('href'),
    ).toBe('http://localhost/billing-engine/credit-notes/cn_1/t/pdf');
    expect(
      screen.getByRole('link', { name: 'Download PDF of invoice FC-000002' }).getAttribute('href'),
    ).toMatch(/\/pdf$/);
  });
});
