/**
 * The product catalogue: Light, Standard and Heavy Streaming, monthly and annual, per region,
 * with a separate solar price list. Ids follow the billing provider's (prod_…, price_…).
 */
import type { BillingInterval, PlanTier, Region } from '../db/schema.ts';

export interface CatalogueProduct {
  id: string;
  name: string;
  tier: PlanTier;
  dataAllowanceGb: number;
  metadata: Record<string, string>;
}

export const catalogueProducts: CatalogueProduct[] = [
  { id: 'prod_light', name: 'Light Streaming', tier: 'light', dataAllowanceGb: 5, metadata: {} },
  {
    id: 'prod_standard',
    name: 'Standard Streaming',
    tier: 'standard',
    dataAllowanceGb: 15,
    metadata: {},
  },
  {
    id: 'prod_heavy',
    name: 'Heavy Streaming',
    tier: 'heavy',
    dataAllowanceGb: 50,
    metadata: { Hours: '120', Provider: 'multi-network' },
  },
];

export interface CataloguePrice {
  id: string;
  productId: string;
  unitAmount: number;
  currency: string;
  interval: BillingInterval;
  region: Region;
  isSolar: boolean;
}

/** Monthly amounts in minor units; annual is ten months' price (two months free). */
const monthlyAmounts: Record<Region, { currency: string; amounts: Record<PlanTier, number> }> = {
  uk: { currency: 'gbp', amounts: { light: 1200, standard: 2000, heavy: 3500 } },
  ie: { currency: 'eur', amounts: { light: 1400, standard: 2400, heavy: 4000 } },
};
const solarDiscount = 200;

export const cataloguePrices: CataloguePrice[] = (['uk', 'ie'] as const).flatMap((region) =>
  catalogueProducts.flatMap((product) =>
    ([false, true] as const).flatMap((isSolar) =>
      (['month', 'year'] as const).map((interval) => {
        const monthly =
          monthlyAmounts[region].amounts[product.tier] - (isSolar ? solarDiscount : 0);
        return {
          id: `price_${product.tier}_${interval}_${region}${isSolar ? '_solar' : ''}`,
          productId: product.id,
          unitAmount: interval === 'month' ? monthly : monthly * 10,
          currency: monthlyAmounts[region].currency,
          interval,
          region,
          isSolar,
        };
      }),
    ),
  ),
);

export const priceId = (
  tier: PlanTier,
  interval: BillingInterval,
  region: Region = 'uk',
  isSolar = false,
) => `price_${tier}_${interval}_${region}${isSolar ? '_solar' : ''}`;
