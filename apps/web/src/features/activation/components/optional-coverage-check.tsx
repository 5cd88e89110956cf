import { useState } from 'react';
import type { ComponentType } from 'react';
import styles from './activation.module.css';

/** An optional signal check for the region step (the coverage feature's, given by the app). */
export type CoverageCheckComponent = ComponentType<{
  initialPostcode?: string;
  onPostcodeChange?: (postcode: string) => void;
  title?: string;
}>;

/** The region step's fold-out signal check. */
export function OptionalCoverageCheck({
  CoverageCheck,
  postcode,
  onPostcodeChange,
}: {
  CoverageCheck: CoverageCheckComponent;
  postcode: string;
  onPostcodeChange: (postcode: string) => void;
}) {
  // Opened at once for a visitor who came from a coverage result; otherwise on request.
  const [initialPostcode] = useState(postcode);
  return (
    <details className={styles.coverage} open={initialPostcode !== ''}>
      <summary className={styles.coverageSummary}>
        Check the signal where the camera will go (UK postcodes, optional)
      </summary>
      <div className={styles.coverageBody}>
        <CoverageCheck
          initialPostcode={initialPostcode}
          onPostcodeChange={onPostcodeChange}
          title="Signal at the camera’s site"
        />
      </div>
    </details>
  );
}
