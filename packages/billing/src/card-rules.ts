/**
 * Which saved card is expired and which one a charge uses: one rule for the local engine's
 * charges, its hosted pages, the Manage plan page and the dashboard's sentence about an unpaid
 * bill (docs/decisions/027, 113).
 */

export interface CardExpiry {
  expMonth: number;
  expYear: number;
}

export function isCardExpired(card: CardExpiry, now: Date): boolean {
  // A card is valid to the end of its expiry month.
  return (
    card.expYear < now.getUTCFullYear() ||
    (card.expYear === now.getUTCFullYear() && card.expMonth < now.getUTCMonth() + 1)
  );
}

/**
 * The card a charge uses, from a customer's saved cards listed default first, then newest first:
 * the default unless it has expired, then the newest unexpired card (an expired card is never
 * the default); only when every card has expired the default, so the charge fails with
 * "expired" rather than "no card".
 */
export function chargedCardOf<Card extends CardExpiry>(
  cardsDefaultFirst: readonly Card[],
  now: Date,
): Card | undefined {
  return cardsDefaultFirst.find((card) => !isCardExpired(card, now)) ?? cardsDefaultFirst[0];
}
