import type { SignalAvailabilityAddress, SignalAvailabilityResponse } from '@farmcam/contract';

/** Test data: an address of the signal result, strong everywhere unless overridden. */
export function buildAddress(
  overrides: Partial<SignalAvailabilityAddress> = {},
): SignalAvailabilityAddress {
  return {
    UPRN: 'DEMO-EX363LH-1',
    AddressShortDescription: 'Higher Combe Farm, Twitchen',
    VodafoneOutdoor: 4,
    VodafoneIndoor: 4,
    O2Outdoor: 4,
    O2Indoor: 4,
    EEOutdoor: 4,
    EEIndoor: 4,
    ThreeOutdoor: 4,
    ThreeIndoor: 4,
    MaxOutdoorFarm4: 4,
    MaxIndoorFarm4: 4,
    SignalBoosterRequiredForInside: false,
    ...overrides,
  };
}

/** Two addresses of EX36 3LH: a farm with mixed signal and a barn that needs a booster. */
export const exmoorAvailability: SignalAvailabilityResponse = {
  PostCode: 'EX363LH',
  source: 'bundled',
  isDemoData: true,
  Availability: [
    buildAddress({
      VodafoneOutdoor: 4,
      VodafoneIndoor: 3,
      O2Outdoor: 3,
      O2Indoor: 0,
      EEOutdoor: 4,
      EEIndoor: 3,
      ThreeOutdoor: 0,
      ThreeIndoor: null,
      MaxOutdoorFarm4: 4,
      MaxIndoorFarm4: 3,
    }),
    buildAddress({
      UPRN: 'DEMO-EX363LH-2',
      AddressShortDescription: 'Lower Combe Barn, Twitchen',
      VodafoneOutdoor: 3,
      VodafoneIndoor: 0,
      O2Outdoor: 0,
      O2Indoor: 0,
      EEOutdoor: 4,
      EEIndoor: 0,
      ThreeOutdoor: 3,
      ThreeIndoor: 0,
      MaxOutdoorFarm4: 4,
      MaxIndoorFarm4: 0,
      SignalBoosterRequiredForInside: true,
    }),
  ],
};
