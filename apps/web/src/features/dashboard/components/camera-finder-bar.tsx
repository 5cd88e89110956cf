import type { Camera } from '@farmcam/contract';
import {
  cameraFindStateLabels,
  cameraFindStates,
  cameraSortLabels,
  cameraSortOrders,
  type CameraFindState,
  type CameraSortOrder,
} from '@farmcam/contract/rules';
import { useId, type ReactNode } from 'react';
import { classNames } from '../../../components/ui/class-names.ts';
import { countsByState, type FinderChoice } from '../camera-finder.ts';
import styles from './camera-finder-bar.module.css';

export interface CameraFinderBarProps {
  cameras: readonly Camera[];
  choice: FinderChoice;
  onChange: (choice: FinderChoice) => void;
}

/**
 * Search, filter and order for a farm with many cameras (decision 140): plain form controls, so a
 * keyboard and a screen reader use them as they use any form; every change shows at once and
 * the live region beside the grid says how many cameras are shown.
 */
export function CameraFinderBar({ cameras, choice, onChange }: CameraFinderBarProps) {
  const counts = countsByState(cameras);
  return (
    <form
      role="search"
      aria-label="Find a camera"
      className={styles.bar}
      onSubmit={(event) => event.preventDefault()}
    >
      <Field label="Find a camera" className={styles.search}>
        {(id) => (
          <input
            id={id}
            type="search"
            className={styles.control}
            value={choice.query}
            placeholder="Name or SIM digits"
            autoComplete="off"
            spellCheck={false}
            enterKeyHint="search"
            maxLength={100}
            onChange={(event) => onChange({ ...choice, query: event.currentTarget.value })}
          />
        )}
      </Field>
      <Field label="Show">
        {(id) => (
          <select
            id={id}
            className={styles.control}
            value={choice.show}
            onChange={(event) =>
              onChange({ ...choice, show: event.currentTarget.value as CameraFindState | 'all' })
            }
          >
            <option value="all">All cameras ({cameras.length})</option>
            {cameraFindStates.map((state) => (
              <option key={state} value={state}>
                {cameraFindStateLabels[state]} ({counts[state]})
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Order">
        {(id) => (
          <select
            id={id}
            className={styles.control}
            value={choice.sort}
            onChange={(event) =>
              onChange({ ...choice, sort: event.currentTarget.value as CameraSortOrder })
            }
          >
            {cameraSortOrders.map((order) => (
              <option key={order} value={order}>
                {cameraSortLabels[order]}
              </option>
            ))}
          </select>
        )}
      </Field>
    </form>
  );
}

function Field({
  label,
  className,
  children,
}: {
  label: string;
  className?: string;
  children: (id: string) => ReactNode;
}) {
  const id = useId();
  return (
    <div className={classNames(styles.field, className)}>
      <label htmlFor={id} className={styles.label}>
        {label}
      </label>
      {children(id)}
    </div>
  );
}
