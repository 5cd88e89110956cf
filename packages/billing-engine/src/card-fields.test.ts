import { describe, expect, it } from 'vitest';
import { cardFieldErrors, cardFieldMessages, readExpiry } from './card-fields.ts';

const now = new Date('2026-05-10T12:00:00Z');
const card = (number: string, expiry: string, cvc: string) => ({
  number,
  ...readExpiry(expiry),
  cvc,
});

describe('a typed card, field by field, in Stripe Elements words', () => {
  it('accepts a good card however the expiry is typed', () => {
    for (const expiry of ['12 / 30', '12/30', '1230', '12/2030', '05/26']) {
      expect(cardFieldErrors(card('4242 4242 4242 4242', expiry, '123'), now)).toEqual({});
    }
  });

  it.each([
    ['', 'number', cardFieldMessages.numberIncomplete],
    ['4242 4242 4242', 'number', cardFieldMessages.numberIncomplete],
    ['4242 4242 4242 4241', 'number', cardFieldMessages.numberInvalid],
    ['4242 4242 4242 42421', 'number', cardFieldMessages.numberInvalid],
    ['4242-4242-abcd-4242', 'number', cardFieldMessages.numberInvalid],
  ])('number %j: %s', (number, field, message) => {
    expect(cardFieldErrors(card(number, '12/30', '123'), now)).toEqual({ [field]: message });
  });

  it.each([
    ['', cardFieldMessages.expiryIncomplete],
    ['12', cardFieldMessages.expiryIncomplete],
    ['1/3', cardFieldMessages.expiryIncomplete],
    ['13 / 30', cardFieldMessages.expiryMonthInvalid],
    ['00 / 30', cardFieldMessages.expiryMonthInvalid],
    ['12 / 25', cardFieldMessages.expiryYearPast],
    ['04 / 26', cardFieldMessages.expiryDatePast],
    ['12 / 2099', cardFieldMessages.expiryYearInvalid],
  ])('expiry %j', (expiry, message) => {
    expect(cardFieldErrors(card('4242424242424242', expiry, '123'), now)).toEqual({
      expiry: message,
    });
  });

  it.each([
    ['', cardFieldMessages.cvcIncomplete],
    ['12', cardFieldMessages.cvcIncomplete],
    ['12a', cardFieldMessages.cvcInvalid],
    ['12345', cardFieldMessages.cvcInvalid],
  ])('CVC %j', (cvc, message) => {
    expect(cardFieldErrors(card('4242424242424242', '12/30', cvc), now)).toEqual({ cvc: message });
  });
});
