/**
 * The portal's service worker (decision 117), built by vite-plugin-pwa's injectManifest strategy
 * into /sw.js. One file: whatever else the worker will do (push notifications: a `push` and a
 * `notificationclick` listener) goes here too.
 *
 * - Precaches what the build made (the app shell index.html, the landing page, every script,
 *   style sheet and icon; `self.__WB_MANIFEST`, filled in at build time) and serves it from the
 *   cache, so a later visit starts at once, also with no signal.
 * - A page address (a navigation) is answered with the shell from the cache: `/` with the
 *   visitor's prerendered sign-in page, every other page with index.html, as the server would.
 * - It never answers for what the server decides each time (serverOnlyPathPrefixes: /api, /dev,
 *   the billing engine's hosted pages, livestream embeds, media and the no-JavaScript sign-in
 *   post): those go to the network as if there were no worker. API answers are kept on the
 *   device by the app itself (lib/persisted-queries.ts), per signed-in person, never here.
 * - A new version takes over at once (skipWaiting, clientsClaim) and drops the old precache; a
 *   page still running the old version loads what it lacks from the server, and the app's chunk
 *   retry (decision 040) covers a chunk the server no longer has.
 */
/// <reference lib="webworker" />
import { serverOnlyPathPrefixes } from '@farmcam/contract/rules';
import { clientsClaim } from 'workbox-core';
import {
  cleanupOutdatedCaches,
  createHandlerBoundToURL,
  precacheAndRoute,
} from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';

declare let self: ServiceWorkerGlobalScope;

void self.skipWaiting();
clientsClaim();

precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();

const escapeForPattern = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const serverOnly = serverOnlyPathPrefixes.map(
  (prefix) => new RegExp(`^${escapeForPattern(prefix)}`),
);

// `/` (with or without a query): the visitor's sign-in page, hydrated by the app.
registerRoute(
  new NavigationRoute(createHandlerBoundToURL('/landing.html'), { allowlist: [/^\/(\?.*)?$/] }),
);
// Every other page of the SPA: the app shell.
registerRoute(
  new NavigationRoute(createHandlerBoundToURL('/index.html'), { denylist: serverOnly }),
);
