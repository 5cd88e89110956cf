import type { Config } from '../../config/config.ts';
import { createBundledCoverageProvider } from './bundled-coverage.ts';
import type { CoverageProvider } from './coverage.ts';
import { createOfcomCoverageProvider, type OfcomCoverageOptions } from './ofcom-coverage.ts';

/** The coverage provider the configuration names (COVERAGE=bundled, the default, or ofcom). */
export function createCoverageProvider(
  config: Config['coverage'],
  log?: OfcomCoverageOptions['log'],
): CoverageProvider {
  return config.mode === 'ofcom'
    ? createOfcomCoverageProvider({ apiUrl: config.apiUrl, apiKey: config.apiKey, log })
    : createBundledCoverageProvider();
}
