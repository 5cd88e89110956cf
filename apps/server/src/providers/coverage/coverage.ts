/**
 * The coverage port: predicted mobile signal per address of a UK postcode, for each of the four
 * networks our SIM roams across. Implementations: the bundled demo dataset (default, local) and
 * Ofcom's Connected Nations mobile coverage API.
 */

/** The four UK networks, in the order the spec lists them (docs/requirements.md#data signal availability address). */
export const networks = ['vodafone', 'o2', 'ee', 'three'] as const;
export type Network = (typeof networks)[number];

/**
 * Ofcom's 0-4 score for one network at one address: 0 none, 3 limited, 4 likely (1 and 2 are
 * retired values); null when there is no prediction.
 */
export type SignalLevel = 0 | 1 | 2 | 3 | 4 | null;

export interface NetworkSignal {
  indoor: SignalLevel;
  outdoor: SignalLevel;
}

export interface CoverageAddress {
  /** Unique Property Reference Number from Ofcom; a stable demo id in the bundled data. */
  uprn: string;
  description: string;
  networks: Record<Network, NetworkSignal>;
}

export type CoverageLookup =
  | { isFound: true; addresses: CoverageAddress[] }
  /** The provider knows no addresses for this postcode. */
  | { isFound: false };

export interface CoverageProvider {
  readonly source: 'bundled' | 'ofcom';
  /** Demo data, not real coverage: the screens say so. */
  readonly isDemoData: boolean;
  /**
   * How long answers may be kept in our database, or null when the provider is local and needs no
   * cache. Remote data changes a few times a year and calls are metered.
   */
  readonly cachePolicy: { foundSeconds: number; notFoundSeconds: number } | null;
  /** Calls per minute the provider allows across all our processes, or null for no limit. */
  readonly callsPerMinute: number | null;
  /**
   * Coverage for one postcode, already normalised and checked against the UK format.
   * Throws AppError PROVIDER_UNAVAILABLE (with Retry-After when known) when the provider cannot
   * answer after its retries.
   */
  lookup(postcode: string): Promise<CoverageLookup>;
}

/** Turns any score into a SignalLevel: integers 0-4 pass, anything else counts as no prediction. */
export function toSignalLevel(value: unknown): SignalLevel {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 4
    ? (value as SignalLevel)
    : null;
}
