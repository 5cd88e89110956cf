import { isUkPostcode } from '@farmcam/contract';
import { describe, expect, it } from 'vitest';
import { createBundledCoverageProvider } from './bundled-coverage.ts';
import { networks, type CoverageAddress } from './coverage.ts';

const provider = createBundledCoverageProvider();

async function addressesOf(postcode: string): Promise<CoverageAddress[]> {
  const lookup = await provider.lookup(postcode);
  if (!lookup.isFound) throw new Error(`${postcode} is not in the bundled data`);
  return lookup.addresses;
}

describe('bundled demo coverage', () => {
  it('is marked as demo data and needs no cache', () => {
    expect(provider.source).toBe('bundled');
    expect(provider.isDemoData).toBe(true);
    expect(provider.cachePolicy).toBeNull();
  });

  it('holds several valid UK postcodes with several addresses each', async () => {
    expect(provider.demoPostcodes.length).toBeGreaterThanOrEqual(8);
    for (const { postcode } of provider.demoPostcodes) {
      expect(isUkPostcode(postcode), postcode).toBe(true);
      expect((await addressesOf(postcode)).length, postcode).toBeGreaterThanOrEqual(3);
    }
  });

  it('varies: all-strong towns, addresses with no signal, booster cases, missing predictions', async () => {
    const all: CoverageAddress[] = [];
    for (const { postcode } of provider.demoPostcodes) all.push(...(await addressesOf(postcode)));
    const levels = (address: CoverageAddress) =>
      networks.flatMap((network) => [
        address.networks[network].outdoor,
        address.networks[network].indoor,
      ]);
    expect(all.some((address) => levels(address).every((level) => level === 4))).toBe(true);
    expect(all.some((address) => levels(address).every((level) => !level))).toBe(true);
    expect(all.some((address) => levels(address).includes(null))).toBe(true);
    expect(
      all.some((address) =>
        networks.some(
          (network) =>
            address.networks[network].outdoor === 4 && address.networks[network].indoor === 0,
        ),
      ),
    ).toBe(true);
  });

  it('gives every address a stable demo id that is not a UPRN', async () => {
    const [first, second] = await addressesOf('EX363LH');
    expect(first?.uprn).toBe('DEMO-EX363LH-1');
    expect(second?.uprn).toBe('DEMO-EX363LH-2');
  });

  it('has no data for other postcodes', async () => {
    expect(await provider.lookup('SW1A1AA')).toEqual({ isFound: false });
  });

  it('refuses a data file with an impossible level', () => {
    const broken = {
      notice: 'demo',
      postcodes: [
        {
          postcode: 'EX363LH',
          area: 'Exmoor',
          shows: 'nothing',
          addresses: [
            {
              description: 'Farm',
              outdoor: { vodafone: 5, o2: 0, ee: 0, three: 0 },
              indoor: { vodafone: 0, o2: 0, ee: 0, three: 0 },
            },
          ],
        },
      ],
    };
    expect(() => createBundledCoverageProvider(broken)).toThrow();
  });
});
