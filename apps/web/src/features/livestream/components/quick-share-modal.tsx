import { useState } from 'react';
import { Button } from '../../../components/ui/button.tsx';
import { Modal } from '../../../components/ui/modal.tsx';
import { TextField } from '../../../components/ui/text-field.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import styles from './livestream-setup.module.css';

/**
 * docs/requirements.md#screens/#states: 'Quick Share Livestream', an e-mail field with Share and Cancel. It closes and
 * clears on success; on failure it stays open (the spec's behaviour) and says the server's
 * reason under the field (decision 046).
 */
export function QuickShareModal({
  isOpen,
  onClose,
  onShare,
}: {
  isOpen: boolean;
  onClose: () => void;
  /** Resolves when the code was sent; rejects when it was not. */
  onShare: (email: string) => Promise<void>;
}) {
  const [email, setEmail] = useState('');
  const [isSharing, setIsSharing] = useState(false);
  const [shareError, setShareError] = useState<string | null>(null);

  function close() {
    setEmail('');
    setShareError(null);
    onClose();
  }

  async function share() {
    if (email.trim() === '') return;
    setIsSharing(true);
    setShareError(null);
    try {
      await onShare(email.trim());
      close();
    } catch (error) {
      // docs/requirements.md#states: the modal stays open; the reason says what to change.
      setShareError(errorMessage(error, 'The code could not be sent. Please try again.'));
    } finally {
      setIsSharing(false);
    }
  }

  return (
    <Modal isOpen={isOpen} onClose={close} title="Quick Share Livestream">
      <form
        className={styles.modalForm}
        onSubmit={(event) => {
          event.preventDefault();
          void share();
        }}
      >
        <TextField
          label="E-mail address"
          type="email"
          autoComplete="email"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
        />
        {shareError && (
          <p className={styles.shareError} role="alert">
            {shareError}
          </p>
        )}
        <div className={styles.modalActions}>
          <Button type="submit" isLoading={isSharing}>
            Share
          </Button>
          <Button variant="secondary" onClick={close}>
            Cancel
          </Button>
        </div>
      </form>
    </Modal>
  );
}
