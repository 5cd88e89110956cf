import { describe, expect, it } from 'vitest';
import type { CoverageAddress, NetworkSignal } from '../../providers/coverage/coverage.ts';
import { bestLevel, isCoveredLevel, toSignalAvailabilityAddress } from './signal-availability.ts';

function address(signals: Partial<Record<keyof CoverageAddress['networks'], NetworkSignal>>) {
  const none: NetworkSignal = { outdoor: 0, indoor: 0 };
  return {
    uprn: '1',
    description: 'Higher Combe Farm',
    networks: { vodafone: none, o2: none, ee: none, three: none, ...signals },
  } satisfies CoverageAddress;
}

describe('signal levels (docs/requirements.md#states)', () => {
  it('counts 3 (limited) and 4 (strong) as covered; 0, no prediction and retired 1-2 as not', () => {
    expect(isCoveredLevel(0)).toBe(false);
    expect(isCoveredLevel(null)).toBe(false);
    expect(isCoveredLevel(1)).toBe(false);
    expect(isCoveredLevel(2)).toBe(false);
    expect(isCoveredLevel(3)).toBe(true);
    expect(isCoveredLevel(4)).toBe(true);
  });

  it('takes the best level, ignoring networks without a prediction', () => {
    expect(bestLevel([0, 3, null, 4])).toBe(4);
    expect(bestLevel([null, 0, null])).toBe(0);
    expect(bestLevel([null, null])).toBeNull();
  });
});

describe('signal availability address', () => {
  it('maps each network and gives our multi-network SIM the best of the four', () => {
    const mapped = toSignalAvailabilityAddress(
      address({
        vodafone: { outdoor: 3, indoor: 0 },
        o2: { outdoor: 0, indoor: 0 },
        ee: { outdoor: 4, indoor: 3 },
        three: { outdoor: null, indoor: null },
      }),
    );
    expect(mapped).toEqual({
      UPRN: '1',
      AddressShortDescription: 'Higher Combe Farm',
      VodafoneOutdoor: 3,
      VodafoneIndoor: 0,
      O2Outdoor: 0,
      O2Indoor: 0,
      EEOutdoor: 4,
      EEIndoor: 3,
      ThreeOutdoor: null,
      ThreeIndoor: null,
      MaxOutdoorFarm4: 4,
      MaxIndoorFarm4: 3,
      SignalBoosterRequiredForInside: false,
    });
  });

  it('advises a booster when outdoor signal is usable and indoor is not', () => {
    const barn = toSignalAvailabilityAddress(
      address({ vodafone: { outdoor: 3, indoor: 0 }, three: { outdoor: 4, indoor: 2 } }),
    );
    expect(barn.MaxOutdoorFarm4).toBe(4);
    expect(barn.MaxIndoorFarm4).toBe(2);
    expect(barn.SignalBoosterRequiredForInside).toBe(true);
  });

  it('advises no booster where there is no usable signal outdoors either', () => {
    const fell = toSignalAvailabilityAddress(address({ ee: { outdoor: 2, indoor: 0 } }));
    expect(fell.MaxOutdoorFarm4).toBe(2);
    expect(fell.SignalBoosterRequiredForInside).toBe(false);
  });

  it('has no multi-network level when no network has a prediction', () => {
    const unknown: NetworkSignal = { outdoor: null, indoor: null };
    const mapped = toSignalAvailabilityAddress(
      address({ vodafone: unknown, o2: unknown, ee: unknown, three: unknown }),
    );
    expect(mapped.MaxOutdoorFarm4).toBeNull();
    expect(mapped.MaxIndoorFarm4).toBeNull();
    expect(mapped.SignalBoosterRequiredForInside).toBe(false);
  });
});
