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

// ── Push notifications (decision 123) ─────────────────────────────────────────────────────────

/** What the server sends (modules/notifications: PushPayload): title, text, the page to open. */
interface AlertPush {
  title: string;
  body: string;
  path: string;
  tag: string;
}

function readPush(data: PushMessageData | null): AlertPush {
  const fallback = { title: 'Farmcam', body: '', path: '/dashboard', tag: 'farmcam' };
  if (!data) return fallback;
  try {
    const parsed = data.json() as Partial<AlertPush>;
    return {
      title: typeof parsed.title === 'string' ? parsed.title : fallback.title,
      body: typeof parsed.body === 'string' ? parsed.body : '',
      // Only a page of this portal: a push can never send the farmer elsewhere.
      path:
        typeof parsed.path === 'string' &&
        parsed.path.startsWith('/') &&
        !parsed.path.startsWith('//')
          ? parsed.path
          : fallback.path,
      tag: typeof parsed.tag === 'string' ? parsed.tag : fallback.tag,
    };
  } catch {
    return { ...fallback, body: data.text() };
  }
}

self.addEventListener('push', (event) => {
  const alert = readPush(event.data);
  event.waitUntil(
    self.registration.showNotification(alert.title, {
      body: alert.body,
      tag: alert.tag,
      icon: '/icons/icon-192.png',
      badge: '/icons/icon-192.png',
      data: { path: alert.path },
    }),
  );
});

// A tap opens the page the alert is about: in a window of the portal already open (the
// installed app), else a new one.
self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const path = (event.notification.data as { path?: string } | null)?.path ?? '/dashboard';
  const target = new URL(path, self.location.origin).href;
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      const open = windows.find((client) => new URL(client.url).origin === self.location.origin);
      if (open) {
        // A browser may refuse focus (the tap's permission to raise a window has run out):
        // the window still goes to the alert's page.
        await open.focus().catch(() => undefined);
        // navigate() needs a window this worker controls; otherwise a new window.
        if (await open.navigate(target).catch(() => null)) return;
      }
      await self.clients.openWindow(target);
    })(),
  );
});
