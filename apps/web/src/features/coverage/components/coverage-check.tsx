import { useId, useState } from 'react';
import { Button } from '../../../components/ui/button.tsx';
import { Loader } from '../../../components/ui/spinner.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { describeLookupFailure, useSignalAvailability } from '../api/check-signal.ts';
import { normalisePostcode } from '../postcode.ts';
import type { SignalLocation } from '../signal-rating.ts';
import { AddressSelect } from './address-select.tsx';
import { BoosterAdvice } from './booster-advice.tsx';
import { DemoDataNotice } from './demo-data-notice.tsx';
import { LocationToggle } from './location-toggle.tsx';
import { MultiNetworkResult } from './network-results.tsx';
import { PostcodeForm } from './postcode-form.tsx';
import styles from './coverage-check.module.css';

export interface CoverageCheckProps {
  /** Checked at once when given, e.g. the postcode the visitor came from the result page with. */
  initialPostcode?: string;
  /** Told the normalised postcode after each check, so a page can keep it (e.g. in its query). */
  onPostcodeChange?: (postcode: string) => void;
  title?: string;
}

/**
 * An optional coverage check to embed in another flow (the activation wizard): postcode, then our
 * multi-network result at the chosen address, indoors or outdoors, with the booster advice. Built
 * from the result page's components. Renders its own <form>: place it outside the host's form.
 */
export function CoverageCheck({
  initialPostcode = '',
  onPostcodeChange,
  title = 'Check the signal where the camera will go',
}: CoverageCheckProps) {
  const titleId = useId();
  const [postcode, setPostcode] = useState(() => normalisePostcode(initialPostcode));
  const [selectedUprn, setSelectedUprn] = useState<string | null>(null);
  const [location, setLocation] = useState<SignalLocation>('outdoor');
  const query = useSignalAvailability(postcode);
  const failure = query.isError ? describeLookupFailure(query.error) : null;
  const addresses = query.data?.Availability ?? [];
  const address = addresses.find((item) => item.UPRN === selectedUprn) ?? addresses[0];

  return (
    <section className={styles.check} aria-labelledby={titleId}>
      <h2 id={titleId} className={styles.title}>
        {title}
      </h2>
      <p className={styles.intro}>Optional: see how well our multi-network SIM reaches it.</p>
      <PostcodeForm
        initialPostcode={postcode}
        onSubmit={(next) => {
          setPostcode(next);
          setSelectedUprn(null);
          onPostcodeChange?.(next);
        }}
        isLoading={query.isFetching}
        error={failure === 'invalid' ? errorMessage(query.error) : null}
      />
      {query.isLoading && <Loader label="Checking the signal…" />}
      {failure === 'no-data' && (
        <p role="status" className={styles.message}>
          {errorMessage(query.error)}
        </p>
      )}
      {failure === 'unavailable' && (
        <div role="status" className={styles.message}>
          <p>Coverage could not be checked just now.</p>
          <Button variant="secondary" onClick={() => void query.refetch()}>
            Try again
          </Button>
        </div>
      )}
      {query.data && address && (
        <div className={styles.result}>
          {query.data.isDemoData && <DemoDataNotice />}
          <AddressSelect addresses={addresses} value={address.UPRN} onChange={setSelectedUprn} />
          <LocationToggle value={location} onChange={setLocation} />
          <div aria-live="polite" className={styles.result}>
            <MultiNetworkResult address={address} location={location} headingLevel={3} />
            {address.SignalBoosterRequiredForInside && <BoosterAdvice />}
          </div>
        </div>
      )}
    </section>
  );
}
