import { isCoveredLevel } from '@farmcam/contract/rules';
import type { ChipTone } from '../../components/ui/chip.tsx';

export type SignalLocation = 'outdoor' | 'indoor';

export interface SignalRating {
  label: 'Poor Signal' | 'Limited Signal' | 'Strong Signal';
  tone: Extract<ChipTone, 'danger' | 'warning' | 'success'>;
  isCovered: boolean;
  /** Filled bars of four in the signal icon. */
  bars: 0 | 2 | 4;
}

const poor: SignalRating = { label: 'Poor Signal', tone: 'danger', isCovered: false, bars: 0 };
const limited: SignalRating = {
  label: 'Limited Signal',
  tone: 'warning',
  isCovered: true,
  bars: 2,
};
const strong: SignalRating = { label: 'Strong Signal', tone: 'success', isCovered: true, bars: 4 };

/**
 * docs/requirements.md#states: 0 or missing is Poor Signal (red, not covered), 3 Limited Signal (orange, covered),
 * 4 Strong Signal (green, covered). Which levels are covered is the shared rule the server's
 * result uses (`isCoveredLevel`, decision 170): Ofcom's retired levels 1 and 2 are Poor Signal too.
 */
export function signalRating(level: number | null | undefined): SignalRating {
  if (!isCoveredLevel(level)) return poor;
  return level === 4 ? strong : limited;
}
