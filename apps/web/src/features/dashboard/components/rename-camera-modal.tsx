import type { Camera } from '@farmcam/contract';
import { maxNicknameLength } from '@farmcam/contract/rules';
import { useState } from 'react';
import { Button } from '../../../components/ui/button.tsx';
import { Modal } from '../../../components/ui/modal.tsx';
import { TextField } from '../../../components/ui/text-field.tsx';
import { ApiError, errorMessage, toastFailure } from '../../../lib/api-client.ts';
import { toast } from '../../../lib/toast.tsx';
import { useUpdateNickname } from '../api/update-nickname.ts';
import styles from './rename-camera-modal.module.css';

export const renameTexts = {
  success: 'Camera name updated successfully',
  failure: 'Failed to update camera name',
} as const;

/** docs/requirements.md#screens 'Update camera name' modal; open while `camera` is set. */
export function RenameCameraModal({
  camera,
  onClose,
}: {
  camera: Camera | null;
  onClose: () => void;
}) {
  return (
    <Modal isOpen={camera !== null} onClose={onClose} title="Update camera name">
      {camera && <RenameForm key={camera.SIM_ICCID} camera={camera} onDone={onClose} />}
    </Modal>
  );
}

function RenameForm({ camera, onDone }: { camera: Camera; onDone: () => void }) {
  const current = camera.nicknameInDatabase ?? '';
  const [name, setName] = useState(current);
  const [error, setError] = useState<string | null>(null);
  const update = useUpdateNickname();
  const trimmed = name.trim();
  // docs/requirements.md#input-rules: disabled when the name is empty, unchanged, or while saving.
  const isDisabled = trimmed === '' || trimmed === current.trim() || update.isPending;

  return (
    <form
      className={styles.form}
      onSubmit={(event) => {
        event.preventDefault();
        if (isDisabled) return;
        setError(null);
        update.mutate(
          { simIccid: camera.SIM_ICCID, nickname: trimmed },
          {
            onSuccess: () => {
              toast.success(renameTexts.success);
              onDone();
            },
            onError: (failure) => {
              toastFailure(failure, renameTexts.failure);
              if (failure instanceof ApiError && failure.status === 400) {
                setError(errorMessage(failure));
              }
            },
          },
        );
      }}
    >
      <TextField
        label="Camera name"
        hint={`Up to ${maxNicknameLength} characters, e.g. Top gate`}
        name="nickname"
        autoComplete="off"
        maxLength={maxNicknameLength}
        value={name}
        onChange={(event) => setName(event.target.value)}
        error={error}
        data-autofocus
      />
      <div className={styles.actions}>
        <Button variant="secondary" onClick={onDone}>
          Cancel
        </Button>
        <Button type="submit" disabled={isDisabled} isLoading={update.isPending}>
          Update
        </Button>
      </div>
    </form>
  );
}
