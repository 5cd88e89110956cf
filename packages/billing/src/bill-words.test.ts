import { describe, expect, it } from 'vitest';
import {
  describeUnpaid,
  invoiceDueDay,
  invoiceStatusDetail,
  invoiceStatusLabel,
} from './bill-words.ts';

const now = new Date('2026-05-10T12:00:00Z');
const raisedAt = new Date('2026-05-01T00:00:00Z');
const card = (
  overrides: Partial<{ last4: string; expMonth: number; expYear: number; createdAt: Date }> = {},
) => ({
  last4: '4242',
  expMonth: 12,
  expYear: 2029,
  createdAt: new Date('2025-01-01T00:00:00Z'),
  ...overrides,
});
const facts = (cards: ReturnType<typeof card>[], attemptCount = 1) => ({
  amountDue: 2000,
  currency: 'gbp',
  raisedAt,
  attemptCount,
  cards,
});

describe('one word per invoice status', () => {
  it('calls open Unpaid, void and uncollectible Void', () => {
    expect(['open', 'paid', 'void', 'uncollectible', 'draft'].map(invoiceStatusLabel)).toEqual([
      'Unpaid',
      'Paid',
      'Void',
      'Void',
      'Draft',
    ]);
  });

  it('is due the day it was raised (charged automatically)', () => {
    expect(invoiceDueDay({ createdAt: new Date('2026-05-01T00:30:00Z') })).toBe('2026-05-01');
  });
});

describe('why a bill is unpaid', () => {
  it('names the expired card, its month and the amount', () => {
    expect(describeUnpaid(facts([card({ expMonth: 3, expYear: 2025 })]), now)).toEqual({
      cause: 'card_expired',
      summary: '£20.00 unpaid since 1 May 2026',
      sentence: 'Your card ending 4242 expired in March 2025: update it to pay £20.00.',
    });
  });

  it('says declined when the card on file was tried', () => {
    expect(describeUnpaid(facts([card({ last4: '4444' })]), now)).toMatchObject({
      cause: 'card_declined',
      sentence: 'Your card ending 4444 was declined on 1 May 2026: update it to pay £20.00.',
    });
  });

  it('uses the card a charge would use: an unexpired one before an expired default', () => {
    const words = describeUnpaid(
      facts([card({ expYear: 2024 }), card({ last4: '0005', createdAt: new Date('2026-05-05') })]),
      now,
    );
    // Added after the bill was raised: not tried yet, so not "declined".
    expect(words).toMatchObject({
      cause: 'not_collected',
      sentence: '£20.00 is still to pay: pay it now with your card ending 0005.',
    });
  });

  it('asks for a card when there is none', () => {
    expect(describeUnpaid(facts([]), now)).toMatchObject({
      cause: 'no_card',
      sentence: 'There is no card on file: add one to pay £20.00.',
    });
  });

  it('says what happened to paid, void and closed invoices', () => {
    const invoice = {
      amountDue: 1200,
      amountPaid: 0,
      currency: 'gbp',
      createdAt: raisedAt,
      paidAt: null,
      attemptCount: 1,
    };
    expect(
      invoiceStatusDetail({ ...invoice, status: 'paid', paidAt: new Date('2026-05-02') }, [], now),
    ).toBe('Paid on 2 May 2026.');
    expect(invoiceStatusDetail({ ...invoice, status: 'uncollectible' }, [], now)).toMatch(
      /^Closed unpaid when the plan ended/,
    );
    expect(invoiceStatusDetail({ ...invoice, status: 'open' }, [card()], now)).toBe(
      'Your card ending 4242 was declined on 1 May 2026: update it to pay £12.00.',
    );
  });
});
