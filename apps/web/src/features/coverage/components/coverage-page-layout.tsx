import { useEffect, useLayoutEffect, useRef } from 'react';
import type { ReactNode } from 'react';
import { Link, useLocation } from '../../../lib/router/index.ts';
import { companyWebsiteUrl } from '../../../config/paths.ts';
import styles from './coverage-page-layout.module.css';

const productName = 'Farmcam Portal';

export interface CoveragePageLayoutProps {
  title: string;
  /** Where the back arrow goes; no arrow without it. */
  backTo?: string;
  backLabel?: string;
  children: ReactNode;
}

/**
 * The postcode pages sit outside the portal's frame (docs/requirements.md#routes): anyone may check
 * coverage before buying, signed in or not. The logo links out to the company site.
 */
export function CoveragePageLayout({
  title,
  backTo,
  backLabel,
  children,
}: CoveragePageLayoutProps) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  const { key: locationKey } = useLocation();

  useEffect(() => {
    document.title = `${title} · ${productName}`;
  }, [title]);

  // After an in-app navigation, announce the new page as a full load would; not on first load.
  // Before it is painted, so focus is never taken from a field the person already chose.
  useLayoutEffect(() => {
    if (locationKey !== 'default') headingRef.current?.focus({ preventScroll: true });
  }, [locationKey]);

  return (
    <div className={styles.page}>
      <header className={styles.header}>
        <a
          href={companyWebsiteUrl}
          target="_blank"
          rel="noopener noreferrer"
          className={styles.logoLink}
        >
          <img src="/logo.svg" alt="Farmcam website (opens in a new tab)" width={80} height={80} />
        </a>
      </header>
      <main className={styles.main}>
        {backTo && (
          <Link to={backTo} className={styles.backLink} aria-label={backLabel}>
            <span aria-hidden="true">←</span> Back
          </Link>
        )}
        <h1 ref={headingRef} className={styles.title} tabIndex={-1}>
          {title}
        </h1>
        {children}
      </main>
    </div>
  );
}
