import { useSearchParams } from '../../../lib/router/index.ts';
import { Button } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { Loader } from '../../../components/ui/spinner.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { useAccess } from '../../../lib/access.ts';
import { useActivity } from '../api/fetch-activity.ts';
import type { ActivityFilters as Filters } from '../api/fetch-activity.ts';
import { useFilterChoices } from '../api/fetch-filter-choices.ts';
import { ActivityFilters } from './activity-filters.tsx';
import { ActivityList } from './activity-list.tsx';
import styles from './activity-page.module.css';

const filterKeys = ['category', 'actor', 'iccid', 'from', 'to'] as const;

/** The filters from the URL (so a filtered view can be bookmarked, shared and gone back to). */
function filtersOf(search: URLSearchParams): Filters {
  const filters: Record<string, string> = {};
  for (const key of filterKeys) {
    const value = search.get(key);
    if (value) filters[key] = value;
  }
  // An unknown category is left to the server, which answers with a sentence.
  return filters as Filters;
}

function searchOf(filters: Filters): URLSearchParams {
  const search = new URLSearchParams();
  for (const key of filterKeys) {
    const value = filters[key];
    if (value) search.set(key, value);
  }
  return search;
}

/**
 * Activity (/activity, the owner's; docs/decisions/092, 093): who did what to the account, when
 * (UK time) and from where, newest first, with filters kept in the URL and a page at a time.
 */
export function ActivityPage() {
  const [searchParams, setSearchParams] = useSearchParams();
  const filters = filtersOf(searchParams);
  const hasFilters = Object.keys(filters).length > 0;
  const access = useAccess();
  const isAllowed = access?.can.viewActivity === true;
  const activity = useActivity(filters, isAllowed);
  const choices = useFilterChoices(isAllowed);
  const cameras = choices.data?.cameras ?? [];
  const people = [...(access ? [access.accountEmail] : []), ...(choices.data?.people ?? [])].filter(
    (email, index, all) => all.indexOf(email) === index,
  );
  const setFilters = (next: Filters) => setSearchParams(searchOf(next), { replace: true });

  const entries = activity.data?.pages.flatMap((page) => page.entries) ?? [];
  let status = '';
  if (!activity.isPending) {
    status =
      entries.length === 0
        ? ''
        : `Showing ${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}${activity.hasNextPage ? '; more can be loaded' : ''}.`;
  }

  let content;
  if (activity.isPending) {
    content = <Loader label="Loading the activity…" />;
  } else if (activity.isError && !activity.isFetchNextPageError) {
    // A failed first page (or refetch); a failed "Load more" keeps the entries shown below.
    content = (
      <div className={styles.problem}>
        <p role="alert" className={styles.error}>
          {errorMessage(activity.error, 'Could not load the activity, please try again.')}
        </p>
        <Button
          variant="secondary"
          onClick={() => void activity.refetch()}
          isLoading={activity.isFetching}
        >
          Try again
        </Button>
      </div>
    );
  } else if (entries.length === 0) {
    content = hasFilters ? (
      <div className={styles.problem}>
        <p>No activity matches these filters.</p>
        <Button variant="secondary" onClick={() => setFilters({})}>
          Show all activity
        </Button>
      </div>
    ) : (
      <p>Nothing has happened on this account yet. Sign-ins and changes will show here.</p>
    );
  } else {
    content = (
      <>
        <ActivityList entries={entries} cameras={cameras} />
        {activity.isFetchNextPageError && (
          <p role="alert" className={styles.error}>
            {errorMessage(activity.error, 'Could not load more, please try again.')}
          </p>
        )}
        {activity.hasNextPage && (
          <div className={styles.more}>
            <Button
              variant="secondary"
              onClick={() => void activity.fetchNextPage()}
              isLoading={activity.isFetchingNextPage}
            >
              Load more
            </Button>
          </div>
        )}
      </>
    );
  }

  if (access && !isAllowed) {
    return (
      <Card>
        <p>Only the account owner can read the account’s activity.</p>
      </Card>
    );
  }

  return (
    <div className={styles.page}>
      <p className={styles.intro}>
        Everything people and Farmcam did on this account in the last 13 months. Staff working on
        your account are marked <strong>Staff</strong>.
      </p>
      <Card>
        <ActivityFilters
          filters={filters}
          onChange={setFilters}
          people={people}
          cameras={cameras}
        />
        {hasFilters && (
          <p className={styles.filterSummary}>
            <button type="button" className={styles.linkButton} onClick={() => setFilters({})}>
              Clear filters
            </button>
          </p>
        )}
      </Card>
      <Card>
        <p role="status" className={styles.status}>
          {status}
        </p>
        {content}
      </Card>
    </div>
  );
}
