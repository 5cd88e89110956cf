/**
 * Where the web app manifest is served: vite.config.ts writes it there, prerender-plugin.ts takes
 * its link out of the built pages, and lib/install.ts links it once the first screen is painted.
 * A module of its own, so the build reads it without loading the app.
 */
export const manifestPath = '/manifest.webmanifest';
