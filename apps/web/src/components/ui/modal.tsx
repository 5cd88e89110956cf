import { useId } from 'react';
import type { ReactNode } from 'react';
import styles from './modal.module.css';
import { useModalDialog } from './use-modal-dialog.ts';

export interface ModalProps {
  isOpen: boolean;
  onClose: () => void;
  title: ReactNode;
  children: ReactNode;
}

/** A modal dialog, at most 400px wide (docs/requirements.md#limits). Content mounts only while open. */
export function Modal({ isOpen, onClose, title, children }: ModalProps) {
  const titleId = useId();
  const dialog = useModalDialog(isOpen, onClose);

  return (
    <dialog
      {...dialog}
      className={styles.modal}
      aria-labelledby={titleId}
      // A click on the backdrop lands on the dialog element itself; inside, on the content.
      onClick={(event) => {
        if (event.target === event.currentTarget) onClose();
      }}
    >
      {isOpen && (
        <div className={styles.content}>
          <div className={styles.header}>
            <h2 id={titleId} className={styles.title}>
              {title}
            </h2>
            <button type="button" className={styles.close} onClick={onClose} aria-label="Close">
              <span aria-hidden="true">×</span>
            </button>
          </div>
          {children}
        </div>
      )}
    </dialog>
  );
}
