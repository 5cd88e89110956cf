import { useId } from 'react';
import { classNames } from '../../../components/ui/class-names.ts';
import type { SignalAvailabilityAddress } from '@farmcam/contract';
import { bestNetworks, levelAt, multiNetwork, networks } from '../networks.ts';
import { signalRating, type SignalLocation } from '../signal-rating.ts';
import { SignalRatingChip } from './signal-rating-chip.tsx';
import styles from './network-results.module.css';

interface ResultProps {
  address: SignalAvailabilityAddress;
  location: SignalLocation;
  /** h2 on the result page; h3 when embedded under another page's section heading. */
  headingLevel?: 2 | 3;
}

function listNames(names: string[]): string {
  return names.length <= 1
    ? (names[0] ?? '')
    : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** Our SIM's result at an address: the best of the four networks, and which network gives it. */
export function MultiNetworkResult({ address, location, headingLevel = 2 }: ResultProps) {
  const titleId = useId();
  const Heading = `h${headingLevel}` as const;
  const level = levelAt(address, multiNetwork, location);
  const rating = signalRating(level);
  const where = location === 'outdoor' ? 'outdoors' : 'indoors';
  return (
    <section className={classNames(styles.ours, styles[rating.tone])} aria-labelledby={titleId}>
      <Heading id={titleId} className={styles.oursTitle}>
        {multiNetwork.name}
      </Heading>
      <SignalRatingChip level={level} />
      <p className={styles.oursText}>
        {rating.isCovered
          ? `Roams across Vodafone, O2, EE and Three and uses the strongest: ${listNames(bestNetworks(address, location))} here.`
          : `None of the four networks gives a usable signal at this address ${where}.`}
      </p>
    </section>
  );
}

/** Each network's result at an address (docs/requirements.md#states labels and colours). */
export function NetworkResults({ address, location, headingLevel = 2 }: ResultProps) {
  const titleId = useId();
  const Heading = `h${headingLevel}` as const;
  return (
    <section aria-labelledby={titleId}>
      <Heading id={titleId} className={styles.listTitle}>
        Single-network SIMs
      </Heading>
      <ul className={styles.list}>
        {networks.map((network) => (
          <li key={network.name} className={styles.row}>
            <span className={styles.networkName}>{network.name}</span>
            <span className={styles.rating}>
              <SignalRatingChip level={levelAt(address, network, location)} isStackedOnPhones />
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
