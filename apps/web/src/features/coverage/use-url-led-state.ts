import { useState } from 'react';

/**
 * A control's value that answers a tap at once from its own state while the URL leads: writing the
 * query is a navigation the router may hold in a transition (a chunk still loading just after the
 * result appeared), and a control bound to the URL alone snapped back meanwhile, losing the tap.
 * When the URL's value changes (Back, Forward, a shared link), the control follows it
 * (decision 014).
 */
export function useUrlLedState<Value>(urlValue: Value): [Value, (next: Value) => void] {
  const [value, setValue] = useState(urlValue);
  const [followedUrlValue, setFollowedUrlValue] = useState(urlValue);
  if (followedUrlValue !== urlValue) {
    setFollowedUrlValue(urlValue);
    setValue(urlValue);
  }
  return [value, setValue];
}
