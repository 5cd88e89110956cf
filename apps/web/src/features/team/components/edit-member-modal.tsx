import type { TeamMember, TeamResponse } from '@farmcam/contract';
import { useState } from 'react';
import { Button } from '../../../components/ui/button.tsx';
import { Modal } from '../../../components/ui/modal.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { lastUkDayOf } from '../../../lib/uk-time.ts';
import { useUpdateMember } from '../api/update-member.ts';
import {
  accessBodyOf,
  cameraChoiceError,
  canSendAccess,
  MemberAccessFields,
} from './member-access-fields.tsx';
import type { MemberAccessDraft } from './member-access-fields.tsx';
import styles from './team-page.module.css';

export interface EditMemberModalProps {
  member: TeamMember | null;
  cameras: TeamResponse['cameras'];
  minimumLastDay: string;
  onClose: () => void;
  onSaved: (email: string) => void;
}

/** Change a member's role, cameras or last day; open while `member` is set. */
export function EditMemberModal({ member, onClose, ...formProps }: EditMemberModalProps) {
  return (
    <Modal
      isOpen={member !== null}
      onClose={onClose}
      title={`Change access of ${member?.email ?? ''}`}
    >
      {member && <EditMemberForm key={member.id} member={member} onDone={onClose} {...formProps} />}
    </Modal>
  );
}

function draftOf(member: TeamMember): MemberAccessDraft {
  return {
    role: member.role,
    allCameras: member.allCameras,
    iccids: member.cameras.map((camera) => camera.iccid),
    lastDay: member.accessUntil === null ? '' : lastUkDayOf(member.accessUntil),
  };
}

function EditMemberForm({
  member,
  cameras,
  minimumLastDay,
  onDone,
  onSaved,
}: Omit<EditMemberModalProps, 'member' | 'onClose'> & { member: TeamMember; onDone: () => void }) {
  const [draft, setDraft] = useState(() => draftOf(member));
  const [hasTried, setHasTried] = useState(false);
  const [serverError, setServerError] = useState<string | null>(null);
  const update = useUpdateMember();
  // A member may still hold a camera the owner no longer lists (e.g. moved to stock): keep it choosable.
  const choosable = [
    ...cameras,
    ...member.cameras.filter((held) => !cameras.some((camera) => camera.iccid === held.iccid)),
  ];

  return (
    <form
      className={styles.form}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        setHasTried(true);
        setServerError(null);
        if (!canSendAccess(draft)) return;
        update.mutate(
          { memberId: member.id, body: accessBodyOf(draft) },
          {
            onSuccess: () => {
              onSaved(member.email);
              onDone();
            },
            onError: (failure) =>
              setServerError(errorMessage(failure, 'The changes could not be saved.')),
          },
        );
      }}
    >
      <MemberAccessFields
        draft={draft}
        onChange={setDraft}
        cameras={choosable}
        camerasError={hasTried ? cameraChoiceError(draft) : null}
        showErrors={hasTried}
        minimumLastDay={minimumLastDay}
      />
      {serverError && (
        <p role="alert" className={styles.formError}>
          {serverError}
        </p>
      )}
      <div className={styles.modalActions}>
        <Button variant="secondary" onClick={onDone}>
          Cancel
        </Button>
        <Button type="submit" isLoading={update.isPending}>
          Save
        </Button>
      </div>
    </form>
  );
}
