import { formatUkDate } from '@farmcam/contract/rules';
import type { StaffCustomer } from '@farmcam/contract';
import { useId } from 'react';
import { Button } from '../../../components/ui/button.tsx';
import { Chip } from '../../../components/ui/chip.tsx';
import type { ChipTone } from '../../../components/ui/chip.tsx';
import styles from './customer-table.module.css';

const cameraStates: Array<{ key: keyof StaffCustomer['states']; label: string; tone: ChipTone }> = [
  { key: 'active', label: 'active', tone: 'success' },
  { key: 'paused', label: 'paused', tone: 'warning' },
  { key: 'attention', label: 'attention', tone: 'danger' },
  { key: 'terminated', label: 'terminated', tone: 'inactive' },
];

export interface CustomerTableProps {
  customers: StaffCustomer[];
  /** The customer whose portal is being opened, to show progress on that row. */
  openingCustomerId: string | undefined;
  onOpenPortal: (customerId: string) => void;
}

export function CustomerTable({ customers, openingCustomerId, onOpenPortal }: CustomerTableProps) {
  const captionId = useId();
  return (
    // Scrolls sideways on phones; focusable so keyboard users can scroll it too.
    <div className={styles.scroller} role="region" aria-labelledby={captionId} tabIndex={0}>
      <table className={styles.table}>
        <caption id={captionId} className="visually-hidden">
          Customers
        </caption>
        <thead>
          <tr>
            <th scope="col">E-mail</th>
            <th scope="col" className={styles.number}>
              Cameras
            </th>
            <th scope="col">Camera states</th>
            <th scope="col">Created</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {customers.map((customer) => (
            <CustomerRow
              key={customer.id}
              customer={customer}
              isOpening={openingCustomerId === customer.id}
              isDisabled={openingCustomerId !== undefined}
              onOpenPortal={onOpenPortal}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function CustomerRow({
  customer,
  isOpening,
  isDisabled,
  onOpenPortal,
}: {
  customer: StaffCustomer;
  isOpening: boolean;
  isDisabled: boolean;
  onOpenPortal: (customerId: string) => void;
}) {
  const emailId = useId();
  return (
    <tr>
      <th scope="row" id={emailId} className={styles.email}>
        {customer.email}
      </th>
      <td className={styles.number} data-label="Cameras">
        {customer.cameraCount}
      </td>
      <td data-label="Camera states">
        <CameraStates states={customer.states} />
      </td>
      <td className={styles.date} data-label="Created">
        {formatUkDate(customer.createdAt)}
      </td>
      <td className={styles.actionCell}>
        <Button
          variant="secondary"
          className={styles.action}
          aria-describedby={emailId}
          isLoading={isOpening}
          disabled={isDisabled}
          onClick={() => onOpenPortal(customer.id)}
        >
          Open portal as this customer
        </Button>
      </td>
    </tr>
  );
}

/** Only the states that occur, e.g. "2 active" "1 attention"; a dash when there are no cameras. */
function CameraStates({ states }: { states: StaffCustomer['states'] }) {
  const occurring = cameraStates.filter((state) => states[state.key] > 0);
  if (occurring.length === 0) return <span className={styles.none}>—</span>;
  return (
    <span className={styles.states}>
      {occurring.map((state) => (
        <Chip key={state.key} tone={state.tone}>
          {states[state.key]} {state.label}
        </Chip>
      ))}
    </span>
  );
}
