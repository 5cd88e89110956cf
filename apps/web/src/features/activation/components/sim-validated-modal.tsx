import { useId, useState } from 'react';
import { Button } from '../../../components/ui/button.tsx';
import { Modal } from '../../../components/ui/modal.tsx';
import styles from './activation.module.css';

/** 8944110000000009017 → "8944 1100 0000 0009 017", easier to compare with the card. */
export const groupDigits = (digits: string) => digits.replace(/(\d{4})(?=\d)/g, '$1 ');

/**
 * docs/requirements.md#screens: after a 4-letter code is validated, the visitor ticks a box confirming the SIM number's
 * last 4 digits match their SIM before going on (a typo can hit someone else's code).
 */
export function SimValidatedModal({
  iccid,
  onConfirm,
  onClose,
}: {
  iccid: string | null;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Modal isOpen={iccid !== null} onClose={onClose} title="SIM Validated">
      {iccid && <SimConfirmation iccid={iccid} onConfirm={onConfirm} />}
    </Modal>
  );
}

function SimConfirmation({ iccid, onConfirm }: { iccid: string; onConfirm: () => void }) {
  const [isConfirmed, setIsConfirmed] = useState(false);
  const checkboxId = useId();
  const lastDigits = iccid.slice(-4);
  return (
    <div className={styles.modalBody}>
      <p>Your code belongs to the SIM with this number:</p>
      <p className={styles.iccid}>{groupDigits(iccid)}</p>
      <div className={styles.checkRow}>
        <input
          id={checkboxId}
          type="checkbox"
          className={styles.checkbox}
          checked={isConfirmed}
          onChange={(event) => setIsConfirmed(event.target.checked)}
        />
        <label htmlFor={checkboxId}>
          The last 4 digits, <strong>{lastDigits}</strong>, match the number on my SIM
        </label>
      </div>
      <Button isFullWidth disabled={!isConfirmed} onClick={onConfirm}>
        Continue
      </Button>
    </div>
  );
}
