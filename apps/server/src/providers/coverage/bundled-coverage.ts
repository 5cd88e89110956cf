/**
 * The default coverage provider: a bundled demo dataset (bundled-coverage-data.json) of invented
 * rural and town addresses across the UK with varied signal, so the coverage screens work on a
 * fresh machine without an Ofcom API key. Answers are marked as demo data; any other postcode has
 * no coverage data.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import {
  networks,
  type CoverageAddress,
  type CoverageLookup,
  type CoverageProvider,
  type SignalLevel,
} from './coverage.ts';

const level = z.union([z.literal(0), z.literal(3), z.literal(4), z.null()]);
const levelsByNetwork = z.object({ vodafone: level, o2: level, ee: level, three: level });

const datasetSchema = z.object({
  notice: z.string(),
  postcodes: z.array(
    z.object({
      postcode: z.string().regex(/^[A-Z0-9]{5,7}$/, 'postcodes are stored normalised'),
      area: z.string(),
      shows: z.string(),
      addresses: z
        .array(
          z.object({ description: z.string(), outdoor: levelsByNetwork, indoor: levelsByNetwork }),
        )
        .min(1),
    }),
  ),
});

/** The data file sits beside this module (in the source tree; the server runs it with tsx). */
function readBundledDataset(): unknown {
  return JSON.parse(
    readFileSync(new URL('./bundled-coverage-data.json', import.meta.url), 'utf8'),
  ) as unknown;
}

export interface DemoPostcodeEntry {
  postcode: string;
  area: string;
  shows: string;
}

export interface BundledCoverageProvider extends CoverageProvider {
  /** The postcodes the dataset knows, for the entry screen and docs/demo.md. */
  readonly demoPostcodes: DemoPostcodeEntry[];
}

/** Builds the provider from the bundled file, or from another dataset of the same shape (tests). */
export function createBundledCoverageProvider(
  dataset: unknown = readBundledDataset(),
): BundledCoverageProvider {
  // A mistake in the data file stops the server at start, not on the first lookup.
  const parsed = datasetSchema.parse(dataset);
  const byPostcode = new Map<string, CoverageAddress[]>();
  for (const entry of parsed.postcodes) {
    byPostcode.set(
      entry.postcode,
      entry.addresses.map((address, index) => ({
        // Ofcom's ids are UPRNs; demo addresses get stable ids that cannot be mistaken for one.
        uprn: `DEMO-${entry.postcode}-${index + 1}`,
        description: address.description,
        networks: Object.fromEntries(
          networks.map((network) => [
            network,
            {
              indoor: address.indoor[network] as SignalLevel,
              outdoor: address.outdoor[network] as SignalLevel,
            },
          ]),
        ) as CoverageAddress['networks'],
      })),
    );
  }

  return {
    source: 'bundled',
    isDemoData: true,
    cachePolicy: null,
    callsPerMinute: null,
    demoPostcodes: parsed.postcodes.map(({ postcode, area, shows }) => ({ postcode, area, shows })),
    async lookup(postcode: string): Promise<CoverageLookup> {
      const addresses = byPostcode.get(postcode);
      return addresses ? { isFound: true, addresses } : { isFound: false };
    },
  };
}
