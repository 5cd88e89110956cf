import type { PrecacheEntry } from 'workbox-precaching';

declare global {
  interface ServiceWorkerGlobalScope {
    /** The build's precache list, put in by vite-plugin-pwa (injectManifest). */
    __WB_MANIFEST: (PrecacheEntry | string)[];
  }
}
