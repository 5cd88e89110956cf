import { z } from 'zod';

/**
 * docs/requirements.md#input-rules: a postcode is upper-cased with everything but letters and digits removed, so
 * "sw1a 1aa", "SW1A-1AA" and "SW1A1AA" are one postcode.
 */
export function normalisePostcode(input: string): string {
  return input.toUpperCase().replace(/[^A-Z0-9]/g, '');
}

/**
 * The UK postcode format on a normalised postcode (no space): an outward code (area letters,
 * district digits, optional sub-district letter) and an inward code (a digit and two letters, never
 * C, I, K, M, O or V). GIR0AA is the one historic exception still in use.
 */
export const ukPostcodePattern =
  /^(GIR0AA|[A-PR-UWYZ]([0-9]{1,2}|[A-HK-Y][0-9]{1,2}|[0-9][A-HJKPSTUW]|[A-HK-Y][0-9][ABEHMNPRVWXY])[0-9][ABD-HJLNP-UW-Z]{2})$/;

export function isUkPostcode(normalised: string): boolean {
  return ukPostcodePattern.test(normalised);
}

/** The usual written form: the inward code (last three characters) after a space. */
export function formatPostcode(normalised: string): string {
  return normalised.length > 3 ? `${normalised.slice(0, -3)} ${normalised.slice(-3)}` : normalised;
}

export const ofcomSignalParams = z.object({
  postCode: z
    .string()
    .max(40, 'That is not a UK postcode')
    .describe('A UK postcode in any case, with or without spaces'),
});

/**
 * One network's signal level at an address: Ofcom's 0-4 score for 4G-capable data (0 none,
 * 3 limited, 4 likely; 1 and 2 are retired values), or null when there is no prediction.
 */
export const signalLevel = z.number().int().min(0).max(4).nullable();
export type SignalLevel = z.infer<typeof signalLevel>;

/** docs/requirements.md#data "Signal availability address", plus the property's UPRN to tell addresses apart. */
export const signalAvailabilityAddress = z.object({
  UPRN: z.string().describe('Unique Property Reference Number (a demo id in the bundled data)'),
  AddressShortDescription: z.string(),
  VodafoneIndoor: signalLevel,
  VodafoneOutdoor: signalLevel,
  O2Indoor: signalLevel,
  O2Outdoor: signalLevel,
  EEIndoor: signalLevel,
  EEOutdoor: signalLevel,
  ThreeIndoor: signalLevel,
  ThreeOutdoor: signalLevel,
  MaxIndoorFarm4: signalLevel.describe('Our multi-network SIM: the best of the four networks'),
  MaxOutdoorFarm4: signalLevel.describe('Our multi-network SIM: the best of the four networks'),
  SignalBoosterRequiredForInside: z
    .boolean()
    .describe('Outdoor signal is usable (3 or more) and indoor signal is not'),
});
export type SignalAvailabilityAddress = z.infer<typeof signalAvailabilityAddress>;

export const coverageSources = ['bundled', 'ofcom'] as const;
export const coverageSource = z.enum(coverageSources);
export type CoverageSource = z.infer<typeof coverageSource>;

export const signalAvailabilityResponse = z.object({
  PostCode: z.string().describe('The normalised postcode, e.g. EX363LH'),
  Availability: z.array(signalAvailabilityAddress).min(1),
  source: coverageSource,
  isDemoData: z.boolean().describe('True for the bundled demo dataset: not real coverage'),
});
export type SignalAvailabilityResponse = z.infer<typeof signalAvailabilityResponse>;

export const demoPostcode = z.object({
  postcode: z.string(),
  area: z.string(),
  shows: z.string().describe('What the demo postcode is good for trying'),
});
export type DemoPostcode = z.infer<typeof demoPostcode>;

export const coverageSourceResponse = z.object({
  source: coverageSource,
  isDemoData: z.boolean(),
  demoPostcodes: z.array(demoPostcode).describe('Empty unless the bundled demo data is in use'),
});
export type CoverageSourceResponse = z.infer<typeof coverageSourceResponse>;
