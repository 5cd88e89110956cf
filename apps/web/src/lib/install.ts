import { useSyncExternalStore } from 'react';
import type { QueryClient } from '@tanstack/react-query';
import { afterAnswersPainted } from './after-paint.ts';
import { manifestPath } from './manifest-path.ts';

/**
 * The installable app's browser side (decision 117): the service worker is registered once the
 * first page has what it needs, and the browser's offer to install (`beforeinstallprompt`,
 * Chromium's browsers) is kept for the install hint, which the person may dismiss for good.
 */

/** The event Chromium's browsers fire when the page may be installed (not in TypeScript's DOM). */
interface InstallPromptEvent extends Event {
  prompt(): Promise<void>;
  readonly userChoice: Promise<{ outcome: 'accepted' | 'dismissed' }>;
}

export const installHintDismissedKey = 'installHintDismissed';

function readDismissed(): boolean {
  try {
    return window.localStorage.getItem(installHintDismissedKey) === 'yes';
  } catch {
    return false;
  }
}

let offer: InstallPromptEvent | null = null;
let isDismissed = typeof window === 'undefined' ? true : readDismissed();
const listeners = new Set<() => void>();
const notify = () => {
  for (const listener of listeners) listener();
};

/** Listens for the browser's offer from the start: it may come before the app has rendered. */
export function listenForInstallOffer(): void {
  window.addEventListener('beforeinstallprompt', (event) => {
    // Ours to show when it suits the page, not the browser's own mini bar.
    event.preventDefault();
    offer = event as InstallPromptEvent;
    notify();
  });
  window.addEventListener('appinstalled', () => {
    offer = null;
    notify();
  });
}

export interface InstallOffer {
  /** The browser offers to install and the person has not said "Not now". */
  isOffered: boolean;
  install(): Promise<void>;
  dismiss(): void;
}

const snapshot = () => (offer !== null && !isDismissed ? offer : null);

export function useInstallOffer(): InstallOffer {
  const current = useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    snapshot,
    () => null,
  );
  return {
    isOffered: current !== null,
    async install() {
      if (!current) return;
      await current.prompt();
      // The browser's offer is used up either way; it fires again later if still installable.
      offer = null;
      notify();
    },
    dismiss() {
      isDismissed = true;
      try {
        window.localStorage.setItem(installHintDismissedKey, 'yes');
      } catch {
        // Storage blocked: the hint stays hidden for this visit.
      }
      notify();
    },
  };
}

/**
 * Makes the page installable in the production build, once it has loaded and its first API
 * answers are in and painted: links the web app manifest (which the built pages leave out,
 * prerender-plugin.ts: the browser then fetches it and its icon, 9 KB) and registers /sw.js (built
 * from service-worker/sw.ts), which downloads the whole app for later visits. On one bar of
 * signal neither may slow down the first screen (decision 175).
 */
export function becomeInstallable(queryClient: QueryClient): void {
  if (!import.meta.env.PROD) return;
  afterAnswersPainted(queryClient, () => {
    if (!document.querySelector('link[rel="manifest"]')) {
      const link = document.createElement('link');
      link.rel = 'manifest';
      link.href = manifestPath;
      document.head.appendChild(link);
    }
    if (!('serviceWorker' in navigator)) return;
    navigator.serviceWorker.register('/sw.js').catch((error: unknown) => {
      console.warn('The service worker could not be registered:', error);
    });
  });
}
