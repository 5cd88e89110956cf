/**
 * The probes and the metrics scrape (docs/decisions/070, 071, 102): asked every few seconds by
 * load balancers, orchestrators and Prometheus, on every instance. They never touch the database
 * (a metrics token is not looked up as a session), they are not counted in the customer-facing
 * HTTP series the error-rate alert reads, and a 2xx answer is not logged.
 */
export const probeRoutes: ReadonlySet<string> = new Set([
  '/api/healthz',
  '/api/readyz',
  '/metrics',
]);

/** The request's path (query string or not) is a probe's: compared without building anything. */
export function isProbePath(url: string): boolean {
  for (const route of probeRoutes) {
    if (url.startsWith(route) && (url.length === route.length || url[route.length] === '?')) {
      return true;
    }
  }
  return false;
}
