import { shortSimOf } from '@farmcam/contract/rules';
import type { ActivityCategory, TeamResponse } from '@farmcam/contract';
import type { ActivityFilters as Filters } from '../api/fetch-activity.ts';
import { FilterBar, FilterDateRange, FilterSelect } from '../../../components/ui/filter-bar.tsx';

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
    <FilterBar label="Filter the activity">
      <FilterSelect
        label="What"
        value={filters.category ?? ''}
        anyLabel="Everything"
        options={categories.map((category) => ({
          value: category,
          label: categoryNames[category],
        }))}
        onChange={(value) => set('category', value)}
      />
      <FilterSelect
        label="Who"
        value={filters.actor ?? ''}
        anyLabel="Everyone"
        options={personChoices.map((email) => ({ value: email, label: email }))}
        onChange={(value) => set('actor', value)}
      />
      <FilterSelect
        label="Camera"
        value={filters.iccid ?? ''}
        anyLabel="All cameras"
        options={cameraChoices.map((camera) => ({ value: camera.iccid, label: camera.nickname }))}
        onChange={(value) => set('iccid', value)}
      />
      <FilterDateRange from={filters.from} to={filters.to} onChange={set} />
    </FilterBar>
  );
}
