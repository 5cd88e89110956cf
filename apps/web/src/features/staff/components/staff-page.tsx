import { useState } from 'react';
import { useNavigate } from '../../../lib/router/index.ts';
import { Card } from '../../../components/ui/card.tsx';
import { Loader } from '../../../components/ui/spinner.tsx';
import { TextField } from '../../../components/ui/text-field.tsx';
import { paths } from '../../../config/paths.ts';
import { ApiError, errorMessage } from '../../../lib/api-client.ts';
import { authStore } from '../../../lib/auth-store.ts';
import { useDebouncedValue } from '../../../lib/use-debounced-value.ts';
import { toast } from '../../../lib/toast.tsx';
import { useImpersonateCustomer } from '../api/impersonate-customer.ts';
import { useCustomerSearch } from '../api/search-customers.ts';
import { CustomerTable } from './customer-table.tsx';
import styles from './staff-page.module.css';

const searchDelayMs = 300;

/** Staff area (/staff): find a customer and open the portal as them. */
export function StaffPage() {
  const [search, setSearch] = useState('');
  const debouncedSearch = useDebouncedValue(search.trim(), searchDelayMs);
  const customerSearch = useCustomerSearch(debouncedSearch);
  const impersonate = useImpersonateCustomer();
  const navigate = useNavigate();

  function openPortal(customerId: string) {
    impersonate.mutate(customerId, {
      onSuccess: (session) => {
        authStore.startImpersonation(session.token);
        void navigate(paths.dashboard.href());
      },
      onError: (error) => {
        if (error instanceof ApiError && error.isReported) return;
        toast.error(errorMessage(error, 'Could not open the customer’s portal, please try again'));
      },
    });
  }

  return (
    <Card>
      <div className={styles.searchRow}>
        <TextField
          label="Search customers"
          hint="Part of the customer’s e-mail address"
          type="search"
          name="q"
          autoComplete="off"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
        />
      </div>
      <CustomerResults
        search={debouncedSearch}
        customerSearch={customerSearch}
        openingCustomerId={impersonate.isPending ? impersonate.variables : undefined}
        onOpenPortal={openPortal}
      />
    </Card>
  );
}

function CustomerResults({
  search,
  customerSearch,
  openingCustomerId,
  onOpenPortal,
}: {
  search: string;
  customerSearch: ReturnType<typeof useCustomerSearch>;
  openingCustomerId: string | undefined;
  onOpenPortal: (customerId: string) => void;
}) {
  if (customerSearch.isPending) return <Loader label="Loading customers…" />;
  if (customerSearch.isError) {
    return (
      <p className={styles.error} role="alert">
        {errorMessage(customerSearch.error, 'Could not load customers, please try again')}
      </p>
    );
  }

  const { customers } = customerSearch.data;
  const isSearching = customerSearch.isPlaceholderData;
  return (
    <>
      <p className={styles.summary} role="status">
        {isSearching
          ? 'Searching…'
          : customers.length === 0
            ? search === ''
              ? 'No customers yet.'
              : `No customers match “${search}”.`
            : `${customers.length} ${customers.length === 1 ? 'customer' : 'customers'}`}
      </p>
      {customers.length > 0 && (
        <CustomerTable
          customers={customers}
          openingCustomerId={openingCustomerId}
          onOpenPortal={onOpenPortal}
        />
      )}
    </>
  );
}
