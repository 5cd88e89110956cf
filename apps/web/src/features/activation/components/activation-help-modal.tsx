import { Modal } from '../../../components/ui/modal.tsx';
import { companyWebsiteUrl } from '../../../config/paths.ts';
import styles from './activation.module.css';

export const apnSettingsUrl = `${companyWebsiteUrl}/apn-settings`;

/** docs/requirements.md#screens: where to find the activation code, for virtual and physical SIMs, and APN settings. */
export function ActivationHelpModal({ isOpen, onClose }: { isOpen: boolean; onClose: () => void }) {
  return (
    <Modal isOpen={isOpen} onClose={onClose} title="Where to find your code">
      <div className={styles.modalBody}>
        <h3 className={styles.helpHeading}>Virtual SIM (already in your camera)</h3>
        <p>
          Your 4-letter activation code is in the e-mail or on the leaflet that came with the
          camera. Choose <strong>4-digit code</strong> and type the four letters.
        </p>
        <h3 className={styles.helpHeading}>Physical SIM card</h3>
        <p>
          The 4-letter code is printed on the back of the card the SIM came in. The SIM number
          (ICCID) is the 19 or 20 digits printed on the SIM itself and on that card: choose{' '}
          <strong>20-digit ICCID</strong> to use it instead.
        </p>
        <p>
          Using your own router or phone? Set it up with our{' '}
          <a href={apnSettingsUrl} target="_blank" rel="noreferrer">
            APN settings
            <span className="visually-hidden"> (opens in a new tab)</span>
          </a>
          .
        </p>
      </div>
    </Modal>
  );
}
