/**
 * How many pages' code chunks are on their way (app/chunk-loading.ts reports each), so that work
 * waiting for the first screen (lib/after-paint.ts) does not take a moment with no answer pending,
 * while the page's own code is still arriving on one bar, for the screen being done.
 */
let pending = 0;
const listeners = new Set<() => void>();

export function trackPageCodeLoad<T>(loading: Promise<T>): Promise<T> {
  pending += 1;
  for (const listener of listeners) listener();
  const done = () => {
    pending -= 1;
    for (const listener of listeners) listener();
  };
  loading.then(done, done);
  return loading;
}

export function pendingPageCodeLoads(): number {
  return pending;
}

/** Called when a load starts or ends. Returns a function that stops listening. */
export function onPageCodeLoads(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
