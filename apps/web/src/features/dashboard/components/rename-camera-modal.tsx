import type { Camera } from '@farmcam/contract';
import { maxNicknameLength, nicknameLength } from '@farmcam/contract/rules';
import { useId, useState } from 'react';
import { Button } from '../../../components/ui/button.tsx';
import { Modal } from '../../../components/ui/modal.tsx';
import { TextField } from '../../../components/ui/text-field.tsx';
import { ApiError, errorMessage, toastFailure } from '../../../lib/api-client.ts';
import { toast } from '../../../lib/toast.tsx';
import { useDebouncedValue } from '../../../lib/use-debounced-value.ts';
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
  const length = nicknameLength(name);
  const isTooLong = length > maxNicknameLength;
  // docs/requirements.md#input-rules: disabled when the name is empty, unchanged, or while saving;
  // and while too long, which the count says (decision 115).
  const isDisabled = trimmed === '' || trimmed === current.trim() || update.isPending || isTooLong;
  const countId = useId();

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
      <div className={styles.field}>
        <TextField
          label="Camera name"
          hint={`Up to ${maxNicknameLength} characters, e.g. Top gate`}
          name="nickname"
          autoComplete="off"
          value={name}
          onChange={(event) => setName(event.target.value)}
          error={error}
          describedById={countId}
          aria-invalid={isTooLong || undefined}
          data-autofocus
        />
        <CharacterCount id={countId} length={length} />
      </div>
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

/** What the count says: how many are left, or how many too many (never cut silently). */
export function characterCountText(length: number): string {
  const left = maxNicknameLength - length;
  const plural = (count: number) => `${count} character${count === 1 ? '' : 's'}`;
  return left >= 0 ? `${plural(left)} left` : `${plural(-left)} too many`;
}

/**
 * A live count under the name, as GOV.UK's character count: seen at once, and said to a screen
 * reader once typing pauses rather than at every key (decision 115).
 */
function CharacterCount({ id, length }: { id: string; length: number }) {
  const text = characterCountText(length);
  const spoken = useDebouncedValue(text, 800);
  const isOver = length > maxNicknameLength;
  return (
    <>
      <p id={id} className={isOver ? styles.countOver : styles.count}>
        {text}
      </p>
      <p className="visually-hidden" aria-live="polite">
        {spoken}
      </p>
    </>
  );
}
