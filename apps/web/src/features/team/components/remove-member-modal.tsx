import type { TeamMember } from '@farmcam/contract';
import { useState } from 'react';
import { Button } from '../../../components/ui/button.tsx';
import { Modal } from '../../../components/ui/modal.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { useRemoveMember } from '../api/remove-member.ts';
import styles from './team-page.module.css';

export interface RemoveMemberModalProps {
  member: TeamMember | null;
  onClose: () => void;
  onRemoved: (email: string) => void;
}

/** Asks before removing: the member is signed out everywhere at once. */
export function RemoveMemberModal({ member, onClose, onRemoved }: RemoveMemberModalProps) {
  return (
    <Modal isOpen={member !== null} onClose={onClose} title="Remove from the team">
      {member && (
        <RemoveConfirmation
          key={member.id}
          member={member}
          onDone={onClose}
          onRemoved={onRemoved}
        />
      )}
    </Modal>
  );
}

function RemoveConfirmation({
  member,
  onDone,
  onRemoved,
}: {
  member: TeamMember;
  onDone: () => void;
  onRemoved: (email: string) => void;
}) {
  const remove = useRemoveMember();
  const [serverError, setServerError] = useState<string | null>(null);

  return (
    <div className={styles.form}>
      <p className={styles.confirmText}>Remove {member.email}? They will be signed out at once.</p>
      {serverError && (
        <p role="alert" className={styles.formError}>
          {serverError}
        </p>
      )}
      <div className={styles.modalActions}>
        <Button variant="secondary" onClick={onDone} data-autofocus>
          Cancel
        </Button>
        <Button
          variant="danger"
          isLoading={remove.isPending}
          onClick={() => {
            setServerError(null);
            remove.mutate(member.id, {
              onSuccess: () => {
                onRemoved(member.email);
                onDone();
              },
              onError: (failure) =>
                setServerError(errorMessage(failure, 'They could not be removed.')),
            });
          }}
        >
          Remove
        </Button>
      </div>
    </div>
  );
}
