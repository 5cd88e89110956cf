import { parseStep, type WizardStep } from '../wizard-state.ts';

/** What the wizard keeps in a history entry's state (decision 054). */
export interface WizardEntry {
  /** The SIM validated on the way to this entry, so steps 3 and 4 survive a reload. */
  iccid: string | null;
  /** The step this entry was pushed from, or null when it was not pushed by a step change. */
  from: WizardStep | null;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** The wizard's part of a history entry's state; an entry it did not write reads as empty. */
export function entryOf(state: unknown): WizardEntry {
  const entry = isRecord(state) ? state.wizardEntry : undefined;
  if (!isRecord(entry)) return { iccid: null, from: null };
  return {
    iccid: typeof entry.iccid === 'string' ? entry.iccid : null,
    from: typeof entry.from === 'number' ? parseStep(String(entry.from)) : null,
  };
}
