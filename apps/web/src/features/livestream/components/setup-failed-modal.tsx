import { Button } from '../../../components/ui/button.tsx';
import { Modal } from '../../../components/ui/modal.tsx';
import styles from './livestream-setup.module.css';

/** docs/requirements.md#screens: the 'Setup Failed' modal listing what went wrong, with 'Try Again'. */
export function SetupFailedModal({
  errors,
  onTryAgain,
  onClose,
}: {
  errors: string[];
  onTryAgain: () => void;
  onClose: () => void;
}) {
  return (
    <Modal isOpen={errors.length > 0} onClose={onClose} title="Setup Failed">
      <ul className={styles.errorList}>
        {errors.map((error) => (
          <li key={error}>{error}</li>
        ))}
      </ul>
      <Button isFullWidth onClick={onTryAgain}>
        Try Again
      </Button>
    </Modal>
  );
}
