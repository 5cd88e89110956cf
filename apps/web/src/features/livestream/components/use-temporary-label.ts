import { useCallback, useEffect, useRef, useState } from 'react';

/** docs/requirements.md#states: the Copy and Share buttons show their outcome, then revert after 2 s. */
export const labelRevertMs = 2000;

/** A button label that shows a transient state and returns to `idle` after `revertMs`. */
export function useTemporaryLabel<State extends string>(idle: State, revertMs = labelRevertMs) {
  const [state, setState] = useState<State>(idle);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => () => clearTimeout(timer.current), []);

  /** Shows `next`; with `isFinal`, reverts to idle after the delay. */
  const show = useCallback(
    (next: State, isFinal = true) => {
      clearTimeout(timer.current);
      setState(next);
      if (isFinal) timer.current = setTimeout(() => setState(idle), revertMs);
    },
    [idle, revertMs],
  );

  return [state, show] as const;
}
