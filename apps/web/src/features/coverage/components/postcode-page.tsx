import { Link, useNavigate } from '../../../lib/router/index.ts';
import { Card } from '../../../components/ui/card.tsx';
import { paths } from '../../../config/paths.ts';
import { useIsSignedIn } from '../../../lib/auth-store.ts';
import { useCoverageSource } from '../api/get-coverage-source.ts';
import { formatPostcode } from '../postcode.ts';
import { CoveragePageLayout } from './coverage-page-layout.tsx';
import { PostcodeForm } from './postcode-form.tsx';
import styles from './postcode-page.module.css';

/** Postcode entry (/postcode): 'Check Signal Availability', then the result page. */
export function PostcodePage() {
  const navigate = useNavigate();
  const isSignedIn = useIsSignedIn();

  return (
    <CoveragePageLayout title="Check Signal Availability">
      <Card>
        <p className={styles.intro}>
          Enter the postcode where your camera will go. We show the predicted 4G signal at each
          address for Vodafone, O2, EE and Three, and for our multi-network SIM, which uses
          whichever of them is strongest.
        </p>
        <PostcodeForm onSubmit={(postcode) => navigate(paths.postcodeResult.href(postcode))} />
      </Card>
      <DemoPostcodes />
      <p className={styles.footer}>
        {isSignedIn ? (
          <Link to={paths.dashboard.href()}>Go to dashboard</Link>
        ) : (
          <>
            Already a customer? <Link to={paths.login.href()}>Sign in</Link>
          </>
        )}
      </p>
    </CoveragePageLayout>
  );
}

/** With the bundled demo data, the postcodes it knows; nothing otherwise (or if unknown). */
function DemoPostcodes() {
  const source = useCoverageSource();
  const demoPostcodes = source.data?.isDemoData ? source.data.demoPostcodes : [];
  if (demoPostcodes.length === 0) return null;

  return (
    <Card title="Demo postcodes" className={styles.demo}>
      <p className={styles.demoIntro}>
        This portal runs on invented demo coverage data, not Ofcom&apos;s. Try one of these:
      </p>
      <ul className={styles.demoList}>
        {demoPostcodes.map((entry) => (
          <li key={entry.postcode}>
            <Link to={paths.postcodeResult.href(entry.postcode)} className={styles.demoLink}>
              {formatPostcode(entry.postcode)}
            </Link>{' '}
            <span className={styles.demoArea}>{entry.area}</span>
            <span className={styles.demoShows}>{entry.shows}</span>
          </li>
        ))}
      </ul>
    </Card>
  );
}
