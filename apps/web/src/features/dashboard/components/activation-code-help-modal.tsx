import { Modal } from '../../../components/ui/modal.tsx';
import { companyWebsiteUrl } from '../../../config/paths.ts';
import styles from './activation-code-help-modal.module.css';

export const apnSettingsUrl = `${companyWebsiteUrl}/apn-settings`;

/** docs/requirements.md#screens help modal: where the activation code is, for virtual and physical SIMs. */
export function ActivationCodeHelpModal({
  isOpen,
  onClose,
}: {
  isOpen: boolean;
  onClose: () => void;
}) {
  return (
    <Modal isOpen={isOpen} onClose={onClose} title="Where to find your activation code">
      <div className={styles.body}>
        <h3 className={styles.heading}>Virtual SIM</h3>
        <p>
          Cameras with a virtual SIM come with a card in the box showing a 4-letter activation code
          (for example KQTX). The same code is in the e-mail confirming your order.
        </p>
        <h3 className={styles.heading}>Physical SIM</h3>
        <p>
          A physical SIM has its 19 or 20-digit SIM number (ICCID, starting 8944) printed on the SIM
          and on the card it came in. Choose the 20-digit option when you activate and enter that
          number instead.
        </p>
        <p className={styles.note}>
          Camera not connecting after activation? Check its{' '}
          <a href={apnSettingsUrl} target="_blank" rel="noreferrer">
            APN settings<span className="visually-hidden"> (opens in a new tab)</span>
          </a>
          .
        </p>
      </div>
    </Modal>
  );
}
