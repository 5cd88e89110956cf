import type { SignalAvailabilityAddress } from '@farmcam/contract';
import type { SignalLocation } from './signal-rating.ts';

type LevelField = {
  [Field in keyof SignalAvailabilityAddress]: SignalAvailabilityAddress[Field] extends number | null
    ? Field
    : never;
}[keyof SignalAvailabilityAddress];

export interface NetworkFields {
  name: string;
  outdoor: LevelField;
  indoor: LevelField;
}

/** The four networks in the spec's order (docs/requirements.md#data signal availability address). */
export const networks: NetworkFields[] = [
  { name: 'Vodafone', outdoor: 'VodafoneOutdoor', indoor: 'VodafoneIndoor' },
  { name: 'O2', outdoor: 'O2Outdoor', indoor: 'O2Indoor' },
  { name: 'EE', outdoor: 'EEOutdoor', indoor: 'EEIndoor' },
  { name: 'Three', outdoor: 'ThreeOutdoor', indoor: 'ThreeIndoor' },
];

/** Our SIM roams across all four networks: its level is the best of them. */
export const multiNetwork: NetworkFields = {
  name: 'Farmcam multi-network SIM',
  outdoor: 'MaxOutdoorFarm4',
  indoor: 'MaxIndoorFarm4',
};

export function levelAt(
  address: SignalAvailabilityAddress,
  network: NetworkFields,
  location: SignalLocation,
): number | null {
  return address[network[location]];
}

/** The networks that reach our SIM's level at this address (the ones it would use). */
export function bestNetworks(
  address: SignalAvailabilityAddress,
  location: SignalLocation,
): string[] {
  const best = levelAt(address, multiNetwork, location);
  if (best === null) return [];
  return networks
    .filter((network) => levelAt(address, network, location) === best)
    .map((network) => network.name);
}
