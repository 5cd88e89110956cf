import { describe, expect, it } from 'vitest';
import {
  choiceOf,
  countsByState,
  defaultChoice,
  findCameras,
  matchesQuery,
  searchOfChoice,
  shownSummary,
} from './camera-finder.ts';
import { buildCamera } from './testing/build-camera.ts';

const names = (cameras: { nicknameInDatabase: string | null }[]) =>
  cameras.map((camera) => camera.nicknameInDatabase);

describe('finding a camera (decision 140)', () => {
  const topGate = buildCamera({
    nicknameInDatabase: 'Top gate',
    SIM_ICCID: '8944110000000001014',
    dataUsageGB: 2,
  });
  const fuelTank = buildCamera({
    nicknameInDatabase: 'Fuel tank',
    SIM_ICCID: '8944110000000001071',
    dataUsageGB: 9,
    findStates: ['needs-attention', 'overdue'],
    stateOrder: 1,
  });
  const cafe = buildCamera({
    nicknameInDatabase: 'Café yard',
    SIM_ICCID: '8944110000000005555',
    dataUsageGB: 0.5,
    findStates: ['paused'],
    stateOrder: 12,
  });
  const camera10 = buildCamera({ nicknameInDatabase: 'Camera 10', stateOrder: 10, dataUsageGB: 2 });
  const camera2 = buildCamera({ nicknameInDatabase: 'Camera 2', stateOrder: 10, dataUsageGB: 2 });
  const unnamed = buildCamera({ nicknameInDatabase: null, SIM_ICCID: '8944110000000004321' });
  const all = [topGate, fuelTank, cafe, camera10, camera2, unnamed];

  it('finds by name, without minding case or accents, and by any run of SIM digits', () => {
    expect(matchesQuery(topGate, 'GATE')).toBe(true);
    expect(matchesQuery(cafe, 'cafe')).toBe(true);
    expect(matchesQuery(fuelTank, '1071')).toBe(true);
    expect(matchesQuery(fuelTank, '…1071')).toBe(true);
    expect(matchesQuery(fuelTank, '8944 1100')).toBe(true);
    expect(matchesQuery(topGate, '1071')).toBe(false);
    // A camera without a name is found by the name the cards give it.
    expect(matchesQuery(unnamed, 'camera 4321')).toBe(true);
    expect(matchesQuery(topGate, '   ')).toBe(true);
  });

  it('lists cameras needing attention first by default, then by name as a person counts', () => {
    expect(names(findCameras(all, defaultChoice))).toEqual([
      'Fuel tank',
      'Camera 2',
      'Camera 10',
      null, // "Camera 4321"
      'Top gate',
      'Café yard',
    ]);
    expect(names(findCameras(all, { ...defaultChoice, sort: 'name' }))).toEqual([
      'Café yard',
      'Camera 2',
      'Camera 10',
      null,
      'Fuel tank',
      'Top gate',
    ]);
    expect(names(findCameras(all, { ...defaultChoice, sort: 'data' })).slice(0, 4)).toEqual([
      'Fuel tank',
      'Camera 2',
      'Camera 10',
      'Top gate',
    ]);
  });

  it("filters by the server's states, and combines the filter with the search", () => {
    expect(names(findCameras(all, { ...defaultChoice, show: 'overdue' }))).toEqual(['Fuel tank']);
    expect(findCameras(all, { ...defaultChoice, show: 'overdue', query: 'gate' })).toEqual([]);
    expect(countsByState(all)).toEqual({
      'needs-attention': 1,
      overdue: 1,
      paused: 1,
      'no-plan': 0,
      livestreaming: 0,
      silent: 0,
    });
  });

  it('keeps the choice in the address, leaving out defaults and keeping other parameters', () => {
    const search = searchOfChoice(
      { query: 'tank', show: 'overdue', sort: 'name' },
      new URLSearchParams('from=email'),
    );
    expect(search.toString()).toBe('from=email&q=tank&show=overdue&sort=name');
    expect(choiceOf(search)).toEqual({ query: 'tank', show: 'overdue', sort: 'name' });
    expect(searchOfChoice(defaultChoice, search).toString()).toBe('from=email');
    // An unknown filter or order from an old or mistyped link is the default.
    expect(choiceOf(new URLSearchParams('show=broken&sort=colour'))).toEqual(defaultChoice);
  });

  it('says how many are shown', () => {
    expect(shownSummary(12, 340)).toBe('12 of 340 cameras');
    expect(shownSummary(340, 340)).toBe('340 cameras');
    expect(shownSummary(0, 1)).toBe('0 of 1 camera');
  });
});
