/**
 * The only place that reads build-time settings. Checked by hand rather than with zod so that
 * zod stays out of the browser bundle.
 */
function readApiBase(value: string | undefined): string {
  const apiBase = (value ?? '').trim().replace(/\/+$/, '');
  if (apiBase !== '' && !/^https?:\/\/[^/]+/.test(apiBase)) {
    throw new Error(`VITE_API_BASE must be empty or an http(s) URL, got "${value}"`);
  }
  return apiBase;
}

export const env = {
  /** Prefix for API paths such as `/api/auth/login`; '' means the same origin as the SPA. */
  apiBase: readApiBase(import.meta.env.VITE_API_BASE),
} as const;
