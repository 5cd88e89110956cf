import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState } from 'react';
import type { ComponentType } from 'react';
import type * as Toastify from 'react-toastify/unstyled';
import { afterAnswersPainted } from './after-paint.ts';
import type * as ToastifyWithStyles from './toastify-with-styles.ts';

/**
 * Toasts through react-toastify, whose code loads after the first paint: no page needs a toast
 * to show, and its 6.6 KB (gzip) would push the first load of / past the 120 KB budget. It loads
 * once the page's first answers are painted and the browser is idle (so it is there when
 * the connection drops later, and does not share the first screen's bar of signal, decision 175),
 * or at the first toast if that comes sooner; react-toastify queues toasts raised before its
 * container mounts.
 */
let toastifyModule: Promise<typeof ToastifyWithStyles> | undefined;

function loadToastify(): Promise<typeof ToastifyWithStyles> {
  toastifyModule ??= import('./toastify-with-styles.ts').catch((error: unknown) => {
    // Let a later toast try again (the connection may be back).
    toastifyModule = undefined;
    throw error;
  });
  return toastifyModule;
}

const containerRequests = new Set<() => void>();

type ToastKind = 'success' | 'error' | 'warning' | 'info';

function show(kind: ToastKind, message: string, options?: Toastify.ToastOptions): void {
  for (const requestContainer of containerRequests) requestContainer();
  loadToastify().then(
    ({ toast: toastify }) => {
      toastify[kind](message, options);
    },
    (error: unknown) => console.warn(`Could not show "${message}":`, error),
  );
}

export const toast = {
  success: (message: string, options?: Toastify.ToastOptions) => show('success', message, options),
  error: (message: string, options?: Toastify.ToastOptions) => show('error', message, options),
  warning: (message: string, options?: Toastify.ToastOptions) => show('warning', message, options),
  info: (message: string, options?: Toastify.ToastOptions) => show('info', message, options),
};

const ToastifyContainer = lazy(
  async (): Promise<{ default: ComponentType<Toastify.ToastContainerProps> }> => {
    try {
      const { ToastContainer, Zoom } = await loadToastify();
      // Zoom grows a toast where it stands; the default bounce drops it in from above the
      // window, across the page title (decision 115).
      return {
        default: (props: Toastify.ToastContainerProps) => (
          <ToastContainer transition={Zoom} {...props} />
        ),
      };
    } catch {
      // Without the container no toast shows, but the page itself must keep working.
      return { default: () => null };
    }
  },
);

/**
 * A toast's close button: a 44 × 44 px target a thumb can hit (WCAG 2.5.5), where react-toastify's
 * own is a 14 px cross (decision 115).
 */
export function ToastDismissButton({ closeToast }: { closeToast: () => void }) {
  return (
    <button
      type="button"
      className="toast-dismiss"
      aria-label="Dismiss"
      onClick={() => closeToast()}
    >
      <svg viewBox="0 0 14 14" width="14" height="14" aria-hidden="true">
        <path d="M1 1l12 12M13 1L1 13" stroke="currentColor" strokeWidth="2" />
      </svg>
    </button>
  );
}

/**
 * The toast container, mounted once the page's first answers are painted and the browser is idle,
 * or when a toast is raised.
 */
export function DeferredToastContainer(props: Toastify.ToastContainerProps) {
  const queryClient = useQueryClient();
  const [isRequested, setIsRequested] = useState(false);

  useEffect(() => {
    const request = () => setIsRequested(true);
    containerRequests.add(request);
    const cancelWait = afterAnswersPainted(queryClient, request);
    return () => {
      containerRequests.delete(request);
      cancelWait();
    };
  }, [queryClient]);

  return isRequested ? (
    <Suspense fallback={null}>
      <ToastifyContainer closeButton={ToastDismissButton} {...props} />
    </Suspense>
  ) : null;
}
