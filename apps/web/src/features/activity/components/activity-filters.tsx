import type { ActivityCategory, TeamResponse } from '@farmcam/contract';
import { useId } from 'react';
import type { ReactNode } from 'react';
import type { ActivityFilters as Filters } from '../api/fetch-activity.ts';
import { DateField, unfinishedDate } from '../../../components/ui/date-field.tsx';
import styles from './activity-page.module.css';
import { shortSimOf } from '../../../lib/camera-name.ts';

/** How each category is named in the filter and on an entry. */
export const categoryNames: Record<ActivityCategory, string> = {
  'sign-in': 'Sign-ins',
  cameras: 'Cameras',
  plans: 'Plans',
  billing: 'Payments and cards',
  livestream: 'Livestreaming',
  team: 'Team',
  staff: 'Staff',
};

const categories = Object.keys(categoryNames) as ActivityCategory[];

export interface ActivityFiltersProps {
  filters: Filters;
  onChange: (filters: Filters) => void;
  people: string[];
  cameras: TeamResponse['cameras'];
}

/** Category, person, camera and a range of UK days; each change shows the matching entries. */
export function ActivityFilters({ filters, onChange, people, cameras }: ActivityFiltersProps) {
  const set = (key: keyof Filters, value: string) =>
    onChange({ ...filters, [key]: value === '' ? undefined : value });
  // A person or camera from the URL that is not in the lists (a past member) stays choosable.
  const personChoices =
    filters.actor && !people.includes(filters.actor) ? [...people, filters.actor] : people;
  const cameraChoices =
    filters.iccid && !cameras.some((camera) => camera.iccid === filters.iccid)
      ? [...cameras, { iccid: filters.iccid, nickname: shortSimOf(filters.iccid) }]
      : cameras;

  return (
    <form
      className={styles.filters}
      aria-label="Filter the activity"
      onSubmit={(event) => event.preventDefault()}
    >
      <Field label="What">
        {(id) => (
          <select
            id={id}
            className={styles.control}
            value={filters.category ?? ''}
            onChange={(event) => set('category', event.target.value)}
          >
            <option value="">Everything</option>
            {categories.map((category) => (
              <option key={category} value={category}>
                {categoryNames[category]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Who">
        {(id) => (
          <select
            id={id}
            className={styles.control}
            value={filters.actor ?? ''}
            onChange={(event) => set('actor', event.target.value)}
          >
            <option value="">Everyone</option>
            {personChoices.map((email) => (
              <option key={email} value={email}>
                {email}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Camera">
        {(id) => (
          <select
            id={id}
            className={styles.control}
            value={filters.iccid ?? ''}
            onChange={(event) => set('iccid', event.target.value)}
          >
            <option value="">All cameras</option>
            {cameraChoices.map((camera) => (
              <option key={camera.iccid} value={camera.iccid}>
                {camera.nickname}
              </option>
            ))}
          </select>
        )}
      </Field>
      {/* Typed day, month, year whatever the browser's language (decision 115). */}
      <DateField
        label="From"
        className={styles.dateField}
        value={filters.from ?? ''}
        max={filters.to}
        onChange={(value) => {
          if (value !== unfinishedDate) set('from', value);
        }}
      />
      <DateField
        label="To"
        className={styles.dateField}
        value={filters.to ?? ''}
        min={filters.from}
        onChange={(value) => {
          if (value !== unfinishedDate) set('to', value);
        }}
      />
    </form>
  );
}

function Field({ label, children }: { label: string; children: (id: string) => ReactNode }) {
  const id = useId();
  return (
    <div className={styles.field}>
      <label htmlFor={id} className={styles.label}>
        {label}
      </label>
      {children(id)}
    </div>
  );
}
