import { useEffect, useRef } from 'react';
import type { SyntheticEvent } from 'react';

/**
 * Drives a native <dialog> from React state. showModal() gives what a modal needs without a
 * library: the page behind becomes inert (focus stays inside), Escape closes it, and it sits in
 * the top layer. Focus goes to the element marked data-autofocus, if any, and returns to whatever
 * had it before the dialog opened.
 */
export function useModalDialog(isOpen: boolean, onClose: () => void) {
  const ref = useRef<HTMLDialogElement>(null);
  // Set when this hook closes the dialog itself (unmount, or the owner set isOpen to false): the
  // queued close event must not tell the owner. Preact (decision 088) delivers it even to a
  // dialog already unmounted, where it would close whatever the owner opened next.
  const closingItself = useRef(false);

  useEffect(() => {
    const dialog = ref.current;
    if (!isOpen || !dialog) return;
    const previouslyFocused = document.activeElement;
    closingItself.current = false;
    if (!dialog.open) dialog.showModal();
    // showModal() focuses the first focusable element (the Close button); a field the dialog is
    // for, marked data-autofocus, gets the focus instead (React's autoFocus ran while the dialog
    // was still closed, so it did nothing).
    dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    return () => {
      if (dialog.open) {
        closingItself.current = true;
        dialog.close();
      }
      if (previouslyFocused instanceof HTMLElement) previouslyFocused.focus();
    };
  }, [isOpen]);

  return {
    ref,
    // Escape closes the dialog natively; tell the owner. The close event is queued, so it may come
    // after the owner closed it already, or after an effect re-run (StrictMode) reopened it.
    onClose: (event: SyntheticEvent<HTMLDialogElement>) => {
      if (closingItself.current) {
        closingItself.current = false;
        return;
      }
      if (isOpen && !event.currentTarget.open) onClose();
    },
  };
}
