/**
 * Which pricing table the wizard shows (docs/requirements.md#activation-wizard, step 5, #data Solar check): one per region, and a
 * separate one for solar SIMs. With Stripe, the tables are Stripe's (ids from configuration);
 * otherwise they are our own, drawn by the wizard from the catalogue (`local_uk`, `local_ie`,
 * `local_uk_solar`, `local_ie_solar`). A solar table that is not configured falls back to the
 * region's table, and the spec's fallback (when the solar check fails) is per region: uk or other.
 */
import type { Config } from '../../config/config.ts';
import type { Region } from '../../db/schema.ts';

export interface PricingTableSelection {
  region: Region;
  isSolar: boolean;
}

export interface PricingTables {
  /** `stripe`: Stripe's pricing table element; `local`: our own table from the catalogue. */
  readonly kind: 'local' | 'stripe';
  /** The table for a SIM of this kind in this region. */
  tableFor(selection: PricingTableSelection): string;
  /** docs/requirements.md#screens: the table used when the solar check fails, per region (uk or other). */
  fallback: { uk: string; other: string };
  /** What one of our own tables sells; undefined for an unknown (or Stripe) id. */
  describeLocal(pricingTableId: string): PricingTableSelection | undefined;
}

/** Where Stripe's pricing table element loads its script and its frame from (the CSP allows it). */
export const stripePricingTableOrigins = ['https://js.stripe.com'] as const;

export const localPricingTableId = ({ region, isSolar }: PricingTableSelection) =>
  `local_${region}${isSolar ? '_solar' : ''}`;

const localTables: Record<string, PricingTableSelection> = Object.fromEntries(
  (['uk', 'ie'] as const).flatMap((region) =>
    [false, true].map((isSolar) => [localPricingTableId({ region, isSolar }), { region, isSolar }]),
  ),
);

/**
 * Stripe's tables when BILLING=stripe with a publishable key and the UK table (the IE one falls
 * back to it); our own tables otherwise, including with Stripe but no tables configured (the wizard
 * then starts Stripe Checkout from our table).
 */
export function createPricingTables(config: Pick<Config, 'billing' | 'activation'>): PricingTables {
  const stripe = config.activation.stripePricingTables;
  // Own keys only: an id like `constructor` must not find Object.prototype's members.
  const describeLocal = (pricingTableId: string) =>
    Object.hasOwn(localTables, pricingTableId) ? localTables[pricingTableId] : undefined;
  if (config.billing.mode === 'stripe' && config.billing.publishableKey && stripe.uk) {
    const uk = stripe.uk;
    const ie = stripe.ie ?? uk;
    return {
      kind: 'stripe',
      tableFor: ({ region, isSolar }) =>
        region === 'uk'
          ? ((isSolar ? stripe.ukSolar : undefined) ?? uk)
          : ((isSolar ? stripe.ieSolar : undefined) ?? ie),
      fallback: { uk, other: ie },
      describeLocal,
    };
  }
  return {
    kind: 'local',
    tableFor: localPricingTableId,
    fallback: {
      uk: localPricingTableId({ region: 'uk', isSolar: false }),
      other: localPricingTableId({ region: 'ie', isSolar: false }),
    },
    describeLocal,
  };
}
