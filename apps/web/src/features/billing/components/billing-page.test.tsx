import type { FarmBillingResponse, FarmInvoice } from '@farmcam/contract';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { authStore } from '../../../lib/auth-store.ts';
import {
  jsonResponse,
  memberAccess,
  mockFetch,
  ownerAccess,
  renderRoute,
  requestHeaders,
} from '../../../test/test-utils.tsx';

const user = (access = ownerAccess()) => ({
  email: access.personEmail,
  role: 'customer',
  customerId: 'c1',
  impersonation: null,
  access,
});

const fuelTank = { iccid: '8944110000000010718', nickname: 'Fuel tank' };
const topGate = { iccid: '8944110000000010114', nickname: 'Top gate' };

function invoice(overrides: Partial<FarmInvoice>): FarmInvoice {
  return {
    id: 'in_1',
    number: 'FC-000101',
    billing_customer_id: 'cus_1',
    camera: fuelTank,
    created_date: '2026-03-01T00:00:00.000Z',
    due_date: '2026-03-01',
    total: 2000,
    tax: 333,
    amount_due: 2000,
    amount_remaining: 2000,
    currency: 'gbp',
    status: 'open',
    status_label: 'Unpaid',
    status_detail: 'Your card ending 0341 was declined on 1 March 2026: update it to pay £20.00.',
    invoice_pdf: 'http://portal.test/billing-engine/invoices/in_1/pdf?token=t',
    hosted_invoice_url: 'http://portal.test/billing-engine/invoices/in_1?token=t',
    ...overrides,
  };
}

const farm: FarmBillingResponse = {
  currency: 'gbp',
  due_now: { amount: 2000, invoices: 1 },
  invoices: [
    invoice({}),
    invoice({
      id: 'in_2',
      number: 'FC-000090',
      camera: topGate,
      billing_customer_id: 'cus_2',
      created_date: '2026-02-01T00:00:00.000Z',
      due_date: '2026-02-01',
      total: 1200,
      tax: 200,
      amount_remaining: 0,
      status: 'paid',
      status_label: 'Paid',
      status_detail: 'Paid on 1 February 2026.',
      hosted_invoice_url: null,
    }),
  ],
  cameras: [
    {
      ...fuelTank,
      billing_customer_id: 'cus_1',
      card: {
        brand: 'visa',
        last4: '0341',
        exp_month: 3,
        exp_year: 2026,
        is_expired: false,
        expires_soon: true,
      },
      card_warning:
        'Card ending 0341 expires at the end of March 2026, before the next bill on 1 April 2026.',
    },
    {
      ...topGate,
      billing_customer_id: 'cus_2',
      card: {
        brand: 'visa',
        last4: '4242',
        exp_month: 12,
        exp_year: 2030,
        is_expired: false,
        expires_soon: false,
      },
      card_warning: null,
    },
  ],
  upcoming: [
    {
      camera: topGate,
      billing_customer_id: 'cus_2',
      date: '2026-04-01',
      amount_due: 1200,
      currency: 'gbp',
    },
  ],
  details: null,
};

function serve(
  handler: (url: URL, init: RequestInit) => Response | undefined,
  access = ownerAccess(),
) {
  authStore.signIn('owner-token');
  const calls: { url: URL; init: RequestInit }[] = [];
  mockFetch((url, init) => {
    if (url.pathname === '/api/auth/user-data') return jsonResponse(200, { data: user(access) });
    calls.push({ url, init });
    return handler(url, init) ?? jsonResponse(404, { code: 'NOT_FOUND', message: 'Not found' });
  });
  return calls;
}

describe('Billing page', () => {
  it("lists every camera's invoices with due dates, words and PDFs, the next bills and the cards", async () => {
    serve((url) => (url.pathname === '/api/billing/farm' ? jsonResponse(200, farm) : undefined));
    renderRoute('/billing');
    const table = await screen.findByRole('table');
    const [, unpaid, paid] = within(table).getAllByRole('row');
    expect(within(unpaid!).getByText('Fuel tank')).toBeDefined();
    // Its date and its due date (decision 113: charged automatically, due the day it is raised).
    expect(within(unpaid!).getAllByText('1 March 2026')).toHaveLength(2);
    expect(within(unpaid!).getByText('Unpaid')).toBeDefined();
    expect(within(unpaid!).getByText(/was declined on 1 March 2026/)).toBeDefined();
    expect(within(unpaid!).getByRole('link', { name: /Pay this bill/ })).toBeDefined();
    expect(within(paid!).getByText('Paid')).toBeDefined();
    expect(within(paid!).queryByRole('link', { name: /Pay this bill/ })).toBeNull();
    expect(
      within(paid!).getByRole('link', { name: 'Download PDF of invoice FC-000090' }),
    ).toHaveProperty('href', 'http://portal.test/billing-engine/invoices/in_1/pdf?token=t');
    expect(screen.getByRole('button', { name: 'Pay all £20.00' })).toBeDefined();
    expect(
      screen.getByText('Card ending 0341 expires at the end of March 2026', { exact: false }),
    ).toBeDefined();
    expect(screen.getByText('Top gate', { selector: '[class*="nextCamera"]' })).toBeDefined();
  });

  it('pays all with the amount shown and one key per click, and says what failed', async () => {
    const calls = serve((url, init) => {
      if (url.pathname === '/api/billing/farm') return jsonResponse(200, farm);
      if (url.pathname === '/api/billing/farm/pay-all' && init.method === 'POST') {
        return jsonResponse(200, {
          paid: 0,
          currency: 'gbp',
          results: [
            {
              invoice_id: 'in_1',
              number: 'FC-000101',
              camera: fuelTank,
              amount: 2000,
              outcome: 'declined',
              message: 'Fuel tank: £20.00 not paid. Your card was declined.',
            },
          ],
        });
      }
      return undefined;
    });
    const person = userEvent.setup();
    renderRoute('/billing');
    await person.click(await screen.findByRole('button', { name: 'Pay all £20.00' }));
    expect(
      await screen.findByText('Fuel tank: £20.00 not paid. Your card was declined.'),
    ).toBeDefined();
    expect(screen.getByText(/1 bill was not paid: update its card below/)).toBeDefined();
    const pay = calls.find((call) => call.url.pathname === '/api/billing/farm/pay-all')!;
    expect(JSON.parse(String(pay.init.body))).toEqual({ amount: 2000 });
    expect(requestHeaders(pay.init).get('Idempotency-Key')).toMatch(/^web-/);
  });

  it('keeps the filters in the URL, asks the server for them and says when none match', async () => {
    const calls = serve((url) =>
      url.pathname === '/api/billing/farm'
        ? jsonResponse(
            200,
            url.searchParams.get('status') === 'void' ? { ...farm, invoices: [] } : farm,
          )
        : undefined,
    );
    const person = userEvent.setup();
    const { router } = renderRoute('/billing');
    await screen.findByRole('table');
    await person.selectOptions(screen.getByRole('combobox', { name: 'Status' }), 'Void');
    expect(await screen.findByText('No invoices match these filters.')).toBeDefined();
    expect(router.state.location.search).toBe('?status=void');
    expect(calls.at(-1)!.url.searchParams.get('status')).toBe('void');
    expect(screen.getByRole('button', { name: 'Download CSV' })).toHaveProperty('disabled', true);
    await person.click(screen.getByRole('button', { name: 'Clear filters' }));
    await screen.findByRole('table');
    expect(router.state.location.search).toBe('');
  });

  it("shows the server's sentence when loading fails, and tries again", async () => {
    let fail = true;
    serve((url) => {
      if (url.pathname !== '/api/billing/farm') return undefined;
      return fail
        ? jsonResponse(400, { code: 'VALIDATION_FAILED', message: 'That date does not exist' })
        : jsonResponse(200, farm);
    });
    const person = userEvent.setup();
    renderRoute('/billing?from=2026-02-31');
    expect((await screen.findByRole('alert')).textContent).toBe('That date does not exist');
    fail = false;
    await person.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('table')).toBeDefined();
  });

  it("saves the billing address and VAT number, showing the server's refusal in its words", async () => {
    const calls = serve((url, init) => {
      if (url.pathname === '/api/billing/farm') return jsonResponse(200, farm);
      if (url.pathname === '/api/billing/farm/details' && init.method === 'PUT') {
        const body = JSON.parse(String(init.body)) as { postcode: string };
        if (body.postcode === 'HELLO') {
          return jsonResponse(400, {
            code: 'VALIDATION_FAILED',
            message: 'Enter a UK postcode, like EX1 2MP.',
          });
        }
        return jsonResponse(200, {
          details: {
            name: 'Hill Farm Ltd',
            line1: '1 Hill Road',
            line2: null,
            town: 'Exeter',
            postcode: 'EX1 2MP',
            vat_number: 'GB123456789',
          },
        });
      }
      return undefined;
    });
    const person = userEvent.setup();
    renderRoute('/billing');
    await screen.findByRole('table');
    await person.type(screen.getByRole('textbox', { name: 'Name on invoices' }), 'Hill Farm Ltd');
    await person.type(screen.getByRole('textbox', { name: 'Address line 1' }), '1 Hill Road');
    await person.type(screen.getByRole('textbox', { name: 'Town' }), 'Exeter');
    await person.type(screen.getByRole('textbox', { name: 'Postcode' }), 'HELLO');
    await person.type(screen.getByRole('textbox', { name: /VAT number/ }), '123456789');
    await person.click(screen.getByRole('button', { name: 'Save for future invoices' }));
    expect(
      (await screen.findByText('Enter a UK postcode, like EX1 2MP.')).getAttribute('role'),
    ).toBe('alert');
    await person.clear(screen.getByRole('textbox', { name: 'Postcode' }));
    await person.type(screen.getByRole('textbox', { name: 'Postcode' }), 'ex12mp');
    await person.keyboard('{Enter}');
    expect(
      await screen.findByText(/Every camera's next invoice carries this address and VAT number/),
    ).toBeDefined();
    // The server's form of what was typed is shown back.
    expect(screen.getByRole('textbox', { name: 'Postcode' })).toHaveProperty('value', 'EX1 2MP');
    expect(screen.getByRole('textbox', { name: /VAT number/ })).toHaveProperty(
      'value',
      'GB123456789',
    );
    expect(calls.filter((call) => call.url.pathname === '/api/billing/farm/details')).toHaveLength(
      2,
    );
  });

  it("tells a manager it is the owner's page and asks the server nothing", async () => {
    const calls = serve(() => undefined, memberAccess('manager'));
    renderRoute('/billing');
    expect(
      await screen.findByText(/Only the account owner sees the farm's bills and cards/),
    ).toBeDefined();
    await vi.waitFor(() =>
      expect(calls.some((call) => call.url.pathname === '/api/billing/farm')).toBe(false),
    );
    expect(screen.queryByRole('link', { name: 'Billing' })).toBeNull();
  });
});
