/**
 * The local engine's test cards, like Stripe's: numbers that behave in a known way. Any future
 * expiry date and any three-digit CVC are accepted. docs/demo.md lists them.
 */
export interface TestCard {
  number: string;
  brand: 'visa' | 'mastercard';
  /** `succeeds`: every charge is paid. `declined`: refused when entered. `charge_fails`: accepted
   * and saved, but every charge is declined (to try a failed renewal). */
  behaviour: 'succeeds' | 'declined' | 'charge_fails';
}

export const testCards: TestCard[] = [
  { number: '4242424242424242', brand: 'visa', behaviour: 'succeeds' },
  { number: '5555555555554444', brand: 'mastercard', behaviour: 'succeeds' },
  { number: '4000000000000002', brand: 'visa', behaviour: 'declined' },
  { number: '4000000000000341', brand: 'visa', behaviour: 'charge_fails' },
];

export const declinedMessage = 'Your card was declined. Use another card and try again.';
export const cardAlreadySavedMessage = 'This card is already saved.';
export const testCardMessage =
  'This is a test billing engine: use a test card such as 4242 4242 4242 4242.';

/** The test card with this number; anything but text (a JSON number, an object) is none. */
export function findTestCard(number: unknown): TestCard | undefined {
  if (typeof number !== 'string') return undefined;
  const digits = number.replace(/[\s-]/g, '');
  return testCards.find((card) => card.number === digits);
}

/** Whether a saved card (known by its last four digits) refuses charges. */
export function isFailingCard(last4: string): boolean {
  return testCards.some((card) => card.behaviour !== 'succeeds' && card.number.endsWith(last4));
}
