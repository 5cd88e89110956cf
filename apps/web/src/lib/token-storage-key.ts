/**
 * The local-storage key of the session token (auth-store.ts), on its own so the build can name it
 * in the early-start script (app/early-start.ts) without loading the store.
 */
export const tokenStorageKey = 'token';
