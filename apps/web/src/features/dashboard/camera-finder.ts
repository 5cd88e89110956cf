/**
 * Finding a camera among many on the dashboard (decision 140): a search by name or SIM digits, a
 * filter by state and an order, kept in the address (?q=, ?show=, ?sort=) so a view can be
 * bookmarked, shared and reloaded. Which filters a camera is in and how urgent it is come from
 * the server (its `findStates` and `stateOrder`); this only picks and orders what it said.
 */
import type { Camera } from '@farmcam/contract';
import {
  cameraFindStates,
  cameraSortOrders,
  type CameraFindState,
  type CameraSortOrder,
} from '@farmcam/contract/rules';

/** Fewer cameras than this are all on one screen: no search or filters to get in the way. */
export const findFromCameras = 4;

export interface FinderChoice {
  /** What was typed, as typed. */
  query: string;
  show: CameraFindState | 'all';
  sort: CameraSortOrder;
}

export const defaultChoice: FinderChoice = { query: '', show: 'all', sort: 'state' };

const isFindState = (value: string | null): value is CameraFindState =>
  (cameraFindStates as readonly (string | null)[]).includes(value);
const isSortOrder = (value: string | null): value is CameraSortOrder =>
  (cameraSortOrders as readonly (string | null)[]).includes(value);

/** The choice in the address; anything unknown is the default (an old or mistyped link still works). */
export function choiceOf(search: URLSearchParams): FinderChoice {
  const show = search.get('show');
  const sort = search.get('sort');
  return {
    query: (search.get('q') ?? '').slice(0, 100),
    show: isFindState(show) ? show : 'all',
    sort: isSortOrder(sort) ? sort : 'state',
  };
}

/** The address for a choice, leaving out what is the default, keeping any other parameter. */
export function searchOfChoice(choice: FinderChoice, current: URLSearchParams): URLSearchParams {
  const next = new URLSearchParams(current);
  const set = (key: string, value: string, isDefault: boolean) =>
    isDefault ? next.delete(key) : next.set(key, value);
  set('q', choice.query, choice.query.trim() === '');
  set('show', choice.show, choice.show === 'all');
  set('sort', choice.sort, choice.sort === 'state');
  return next;
}

export const isFiltered = (choice: FinderChoice) =>
  choice.query.trim() !== '' || choice.show !== 'all';

// "Camera 2" before "Camera 10", "élan" beside "Elm": one collator for every comparison.
const names = new Intl.Collator('en-GB', { numeric: true, sensitivity: 'base' });

/** Lower case without accents, so "cafe" finds "Café". */
const folded = (text: string) =>
  text
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase();

/**
 * Whether a camera matches what was typed: its name contains the words, or its SIM number
 * contains the digits (spaces, dots and "…" ignored, so "…1071" and "8944 1100" both work).
 */
export function matchesQuery(camera: Camera, query: string): boolean {
  const words = folded(query.trim());
  if (words === '') return true;
  if (folded(camera.displayName).includes(words)) return true;
  const digits = words.replace(/[\s.…-]/g, '');
  return /^\d+$/.test(digits) && camera.SIM_ICCID.includes(digits);
}

/** Whether a camera is in the choice's filter and matches its search. */
export const isChosen = (camera: Camera, choice: FinderChoice): boolean =>
  (choice.show === 'all' || camera.findStates.includes(choice.show)) &&
  matchesQuery(camera, choice.query);

/** Every camera in an order: a new array, the answer's own left as it was. */
export function orderCameras(cameras: readonly Camera[], sort: CameraSortOrder): Camera[] {
  const keyed = cameras.map((camera) => ({ camera, name: camera.displayName }));
  const byName = (a: (typeof keyed)[number], b: (typeof keyed)[number]) =>
    names.compare(a.name, b.name) || a.camera.SIM_ICCID.localeCompare(b.camera.SIM_ICCID);
  switch (sort) {
    case 'name':
      keyed.sort(byName);
      break;
    case 'data':
      keyed.sort((a, b) => b.camera.dataUsageGB - a.camera.dataUsageGB || byName(a, b));
      break;
    case 'state':
      keyed.sort((a, b) => a.camera.stateOrder - b.camera.stateOrder || byName(a, b));
      break;
  }
  return keyed.map((entry) => entry.camera);
}

/** The cameras a choice shows, in its order. */
export const findCameras = (cameras: readonly Camera[], choice: FinderChoice): Camera[] =>
  orderCameras(cameras, choice.sort).filter((camera) => isChosen(camera, choice));

/** How many cameras each filter would show, for the filter's own words ("Silent (2)"). */
export function countsByState(cameras: readonly Camera[]): Record<CameraFindState, number> {
  const counts = Object.fromEntries(cameraFindStates.map((state) => [state, 0])) as Record<
    CameraFindState,
    number
  >;
  for (const camera of cameras) {
    for (const state of camera.findStates) counts[state] += 1;
  }
  return counts;
}

/** What the live region says: "12 of 340 cameras", or "340 cameras" when all are shown. */
export function shownSummary(shown: number, total: number): string {
  const noun = total === 1 ? 'camera' : 'cameras';
  return shown === total ? `${total} ${noun}` : `${shown} of ${total} ${noun}`;
}
