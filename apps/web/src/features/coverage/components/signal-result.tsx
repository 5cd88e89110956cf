import type { SignalAvailabilityResponse } from '@farmcam/contract';
import type { SignalLocation } from '../signal-rating.ts';
import { AddressSelect } from './address-select.tsx';
import { BoosterAdvice } from './booster-advice.tsx';
import { DemoDataNotice } from './demo-data-notice.tsx';
import { LocationToggle } from './location-toggle.tsx';
import { MultiNetworkResult, NetworkResults } from './network-results.tsx';
import styles from './signal-result.module.css';

export interface SignalResultProps {
  availability: SignalAvailabilityResponse;
  /** UPRN of the chosen address; the first address when absent or unknown. */
  selectedUprn: string | null;
  onSelectAddress: (uprn: string) => void;
  location: SignalLocation;
  onLocationChange: (location: SignalLocation) => void;
}

/**
 * The signal result (docs/requirements.md#screens): address selector, indoor/outdoor toggle, our multi-network result
 * first, the booster advice when it applies, then each network.
 */
export function SignalResult({
  availability,
  selectedUprn,
  onSelectAddress,
  location,
  onLocationChange,
}: SignalResultProps) {
  const addresses = availability.Availability;
  const address = addresses.find((item) => item.UPRN === selectedUprn) ?? addresses[0];
  if (!address) return null;

  return (
    <div className={styles.result}>
      {availability.isDemoData && <DemoDataNotice />}
      <div className={styles.controls}>
        <AddressSelect addresses={addresses} value={address.UPRN} onChange={onSelectAddress} />
        <LocationToggle value={location} onChange={onLocationChange} />
      </div>
      <div className={styles.results} aria-live="polite">
        <MultiNetworkResult address={address} location={location} />
        {address.SignalBoosterRequiredForInside && <BoosterAdvice />}
        <NetworkResults address={address} location={location} />
      </div>
    </div>
  );
}
