import type { ReactNode } from 'react';
import {
  Link,
  Navigate,
  useNavigate,
  useParams,
  useSearchParams,
} from '../../../lib/router/index.ts';
import { Button, buttonClassName } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { Loader } from '../../../components/ui/spinner.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { describeLookupFailure, useSignalAvailability } from '../api/check-signal.ts';
import { formatPostcode, normalisePostcode } from '../postcode.ts';
import type { SignalLocation } from '../signal-rating.ts';
import { CoveragePageLayout } from './coverage-page-layout.tsx';
import { emptyPostcodeMessage, PostcodeForm } from './postcode-form.tsx';
import { SignalResult } from './signal-result.tsx';
import styles from './signal-result-page.module.css';
import { useUrlLedState } from '../use-url-led-state.ts';

/**
 * Signal result (/postcode/{postcode}): coverage at each address of the postcode. The chosen
 * address and indoor/outdoor live in the query (?address=, ?location=indoor), so a result can be
 * shared and Back returns to it. Lookup failures raise no toast (docs/requirements.md#errors); the page says what
 * happened instead of sitting blank.
 */
export function SignalResultPage() {
  const { postcode: rawPostcode = '' } = useParams();
  const postcode = normalisePostcode(rawPostcode);
  const [searchParams, setSearchParams] = useSearchParams();
  const navigate = useNavigate();
  const query = useSignalAvailability(postcode);

  const urlLocation: SignalLocation =
    searchParams.get('location') === 'indoor' ? 'indoor' : 'outdoor';
  // The toggle and the address select answer a tap at once; the URL still leads.
  const [location, setLocation] = useUrlLedState<SignalLocation>(urlLocation);
  const [selectedUprn, setSelectedUprn] = useUrlLedState(searchParams.get('address'));

  if (postcode !== '' && postcode !== rawPostcode) {
    const search = searchParams.toString();
    return (
      <Navigate
        replace
        to={`${paths.postcodeResult.href(postcode)}${search ? `?${search}` : ''}`}
      />
    );
  }

  const updateQuery = (key: string, value: string) =>
    setSearchParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.set(key, value);
        return next;
      },
      { replace: true },
    );
  const checkAnother = (next: string) => navigate(paths.postcodeResult.href(next));
  // An invalid postcode is quoted in the explanation; writing it as a postcode would mislead.
  const isInvalid = query.isError && describeLookupFailure(query.error) === 'invalid';

  let content;
  if (postcode === '') {
    content = (
      <ProblemCard title={emptyPostcodeMessage}>
        <PostcodeForm onSubmit={checkAnother} />
      </ProblemCard>
    );
  } else if (query.isPending) {
    content = <Loader label={`Checking the signal at ${formatPostcode(postcode)}…`} />;
  } else if (query.isError) {
    const failure = describeLookupFailure(query.error);
    content =
      failure === 'unavailable' ? (
        <ProblemCard
          title="Coverage could not be checked just now"
          message="Please try again in a moment."
        >
          <Button onClick={() => void query.refetch()} isLoading={query.isFetching}>
            Try again
          </Button>
        </ProblemCard>
      ) : (
        <ProblemCard
          title={
            failure === 'invalid'
              ? 'That is not a UK postcode'
              : 'No coverage data for this postcode'
          }
          message={errorMessage(query.error)}
        >
          <PostcodeForm label="Try another postcode" onSubmit={checkAnother} />
        </ProblemCard>
      );
  } else {
    content = (
      <>
        <SignalResult
          availability={query.data}
          selectedUprn={selectedUprn}
          onSelectAddress={(uprn) => {
            setSelectedUprn(uprn);
            updateQuery('address', uprn);
          }}
          location={location}
          onLocationChange={(next) => {
            setLocation(next);
            updateQuery('location', next);
          }}
        />
        <div className={styles.actions}>
          <Link
            to={paths.activate.href({ postcode })}
            className={buttonClassName({ isFullWidth: true })}
          >
            Activate a camera here
          </Link>
          <Link
            to={paths.postcode.href()}
            className={buttonClassName({ variant: 'secondary', isFullWidth: true })}
          >
            Check another postcode
          </Link>
        </div>
      </>
    );
  }

  return (
    <CoveragePageLayout
      title="Signal Availability"
      backTo={paths.postcode.href()}
      backLabel="Back to postcode entry"
    >
      {postcode !== '' && !isInvalid && (
        <p className={styles.postcodeLine}>
          Postcode <strong>{formatPostcode(postcode)}</strong>
        </p>
      )}
      {content}
    </CoveragePageLayout>
  );
}

interface ProblemCardProps {
  title: string;
  message?: string;
  /** What the visitor can do next. */
  children: ReactNode;
}

/** Why there is no result, announced as a status, and a way on. */
function ProblemCard({ title, message, children }: ProblemCardProps) {
  return (
    <Card className={styles.problem}>
      <div role="status" className={styles.problemStatus}>
        <h2 className={styles.problemTitle}>{title}</h2>
        {message && <p>{message}</p>}
      </div>
      {children}
    </Card>
  );
}
