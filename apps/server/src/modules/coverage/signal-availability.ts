/**
 * From a provider's per-network levels to the spec's signal availability address (docs/requirements.md#data): the four
 * networks indoor and outdoor, our multi-network SIM's result, and the booster advice.
 */
import type { SignalAvailabilityAddress } from '@farmcam/contract';
import { isCoveredLevel } from '@farmcam/contract/rules';
import {
  networks,
  type CoverageAddress,
  type SignalLevel,
} from '../../providers/coverage/coverage.ts';

// Which levels count as covered is the shared rule (decision 170), which the browser's chips use.
export { isCoveredLevel };

/** The best level among networks; null only when no network has a prediction. */
export function bestLevel(levels: SignalLevel[]): SignalLevel {
  return levels.reduce<SignalLevel>(
    (best, level) => (level !== null && (best === null || level > best) ? level : best),
    null,
  );
}

/**
 * Our SIM roams across all four networks and uses whichever is best where the camera is, so
 * its level (`Max…Farm4`) is the best of the four. A booster is advised when the signal is usable
 * outdoors but not indoors: an external antenna brings the outdoor signal to a camera inside.
 */
export function toSignalAvailabilityAddress(address: CoverageAddress): SignalAvailabilityAddress {
  const { vodafone, o2, ee, three } = address.networks;
  const maxIndoor = bestLevel(networks.map((network) => address.networks[network].indoor));
  const maxOutdoor = bestLevel(networks.map((network) => address.networks[network].outdoor));
  return {
    UPRN: address.uprn,
    AddressShortDescription: address.description,
    VodafoneIndoor: vodafone.indoor,
    VodafoneOutdoor: vodafone.outdoor,
    O2Indoor: o2.indoor,
    O2Outdoor: o2.outdoor,
    EEIndoor: ee.indoor,
    EEOutdoor: ee.outdoor,
    ThreeIndoor: three.indoor,
    ThreeOutdoor: three.outdoor,
    MaxIndoorFarm4: maxIndoor,
    MaxOutdoorFarm4: maxOutdoor,
    SignalBoosterRequiredForInside: isCoveredLevel(maxOutdoor) && !isCoveredLevel(maxIndoor),
  };
}
