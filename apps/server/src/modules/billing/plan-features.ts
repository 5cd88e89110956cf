/**
 * What a plan gives, said once (issue 24, decision 110): the activation wizard's pricing table,
 * Manage plan's cards and the renewal page all show these sentences, built here from the
 * product's own data (its allowance and its metadata), so no screen promises what the plan's
 * data does not say.
 */

/** The product fields a plan's promises come from. */
export interface PlanProductFacts {
  dataAllowanceGb: number;
  /** The billing provider's product metadata (docs/requirements.md#data Plan): Hours, Provider. */
  metadata: Record<string, string>;
}

/** The metadata the screens may read (docs/requirements.md#data Plan: optional Provider and Hours). */
export function planMetadata(product: PlanProductFacts): { Provider?: string; Hours?: string } {
  const { Provider, Hours } = product.metadata;
  return {
    ...(Provider !== undefined && { Provider }),
    ...(Hours !== undefined && { Hours }),
  };
}

/**
 * The plan's features as sentences, allowance first: its data, its livestreaming hours
 * (metadata Hours, docs/requirements.md#what-the-product-does), its SIM (metadata Provider; only
 * 'multi-network' has words of its own). A plan whose metadata is silent promises nothing more.
 */
export function planFeatures(product: PlanProductFacts): string[] {
  const { Provider, Hours } = planMetadata(product);
  const features = [`${product.dataAllowanceGb} GB of data a month`];
  const hours = Hours === undefined ? Number.NaN : Number(Hours);
  if (Number.isFinite(hours) && hours > 0) {
    features.push(`Livestreaming to your website, ${hours} hours a month`);
  }
  if (Provider !== undefined && Provider.trim() !== '') {
    features.push(
      Provider === 'multi-network' ? 'Multi-network SIM' : `SIM on the ${Provider.trim()} network`,
    );
  }
  return features;
}
