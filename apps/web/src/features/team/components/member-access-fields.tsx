import { shortSimOf } from '@farmcam/contract/rules';
import type { MemberRole, TeamResponse, UpdateMemberBody } from '@farmcam/contract';
import { useId } from 'react';
import { DateField, unfinishedDate } from '../../../components/ui/date-field.tsx';
import { roleNames } from '../../../lib/access.ts';
import styles from './team-page.module.css';

type TeamCamera = TeamResponse['cameras'][number];

/** What the invite form and the edit dialog let the owner choose for a member. */
export interface MemberAccessDraft {
  role: MemberRole;
  allCameras: boolean;
  iccids: string[];
  /** YYYY-MM-DD, or '' for no end. */
  lastDay: string;
}

export const emptyAccessDraft: MemberAccessDraft = {
  role: 'viewer',
  allCameras: false,
  iccids: [],
  lastDay: '',
};

/** One line per role, so the owner knows what they are giving (decision 091 has the rules). */
export const roleExplanations: Record<MemberRole, string> = {
  manager:
    'Renames, pauses and changes plans of cameras and sets up livestreams. No payments, invoices or team.',
  viewer: 'Watches the cameras given, with their usage and livestreams. Changes nothing.',
};

const roleOrder: MemberRole[] = ['manager', 'viewer'];

export const chooseCameraMessage = 'Choose at least one camera, or give all cameras.';

/** The request body for a draft (the server checks it again and answers with a sentence if not). */
export function accessBodyOf(draft: MemberAccessDraft): UpdateMemberBody {
  return {
    role: draft.role,
    allCameras: draft.allCameras,
    iccids: draft.allCameras ? [] : draft.iccids,
    accessUntil: draft.lastDay === '' ? null : draft.lastDay,
  };
}

/** What the form can tell before asking the server; null when nothing. */
export function cameraChoiceError(draft: MemberAccessDraft): string | null {
  return !draft.allCameras && draft.iccids.length === 0 ? chooseCameraMessage : null;
}

/**
 * Whether the form may be sent: cameras chosen, and a last day that is a date or empty (the date
 * field says itself what is wrong with it, decision 115).
 */
export const canSendAccess = (draft: MemberAccessDraft): boolean =>
  cameraChoiceError(draft) === null && draft.lastDay !== unfinishedDate;

export interface MemberAccessFieldsProps {
  draft: MemberAccessDraft;
  onChange: (draft: MemberAccessDraft) => void;
  cameras: TeamCamera[];
  /** Shown once the owner has tried to send the form. */
  camerasError: string | null;
  /** The owner has tried to send the form: every field says what is wrong now. */
  showErrors?: boolean;
  /** The first day that may be chosen as the last day (today, UK time). */
  minimumLastDay: string;
}

/** Role (with what it means), all or chosen cameras, and an optional last day. */
export function MemberAccessFields({
  draft,
  onChange,
  cameras,
  camerasError,
  showErrors = false,
  minimumLastDay,
}: MemberAccessFieldsProps) {
  const id = useId();
  const camerasErrorId = `${id}-cameras-error`;
  const update = (changes: Partial<MemberAccessDraft>) => onChange({ ...draft, ...changes });

  return (
    <>
      <fieldset className={styles.fieldset}>
        <legend className={styles.legend}>Role</legend>
        {roleOrder.map((role) => (
          <label key={role} className={styles.choice}>
            <input
              type="radio"
              name={`${id}-role`}
              value={role}
              checked={draft.role === role}
              onChange={() => update({ role })}
              aria-describedby={`${id}-${role}-explanation`}
            />
            <span>
              <span className={styles.choiceLabel}>{roleNames[role]}</span>
              <span id={`${id}-${role}-explanation`} className={styles.choiceHint}>
                {roleExplanations[role]}
              </span>
            </span>
          </label>
        ))}
      </fieldset>

      <fieldset
        className={styles.fieldset}
        aria-describedby={camerasError ? camerasErrorId : undefined}
      >
        <legend className={styles.legend}>Cameras</legend>
        <label className={styles.choice}>
          <input
            type="radio"
            name={`${id}-scope`}
            checked={draft.allCameras}
            onChange={() => update({ allCameras: true })}
          />
          <span className={styles.choiceLabel}>All cameras, including ones added later</span>
        </label>
        <label className={styles.choice}>
          <input
            type="radio"
            name={`${id}-scope`}
            checked={!draft.allCameras}
            onChange={() => update({ allCameras: false })}
          />
          <span className={styles.choiceLabel}>Chosen cameras</span>
        </label>
        {!draft.allCameras &&
          (cameras.length === 0 ? (
            <p className={styles.choiceHint}>This account has no cameras to give yet.</p>
          ) : (
            <ul className={styles.cameraChoices} aria-label="Chosen cameras">
              {cameras.map((camera) => (
                <li key={camera.iccid}>
                  <label className={styles.choice}>
                    <input
                      type="checkbox"
                      checked={draft.iccids.includes(camera.iccid)}
                      onChange={(event) =>
                        update({
                          iccids: event.target.checked
                            ? [...draft.iccids, camera.iccid]
                            : draft.iccids.filter((iccid) => iccid !== camera.iccid),
                        })
                      }
                    />
                    <span>
                      <span className={styles.choiceLabel}>{camera.nickname}</span>{' '}
                      <span className={styles.choiceHint}>{shortSimOf(camera.iccid)}</span>
                    </span>
                  </label>
                </li>
              ))}
            </ul>
          ))}
        {camerasError && (
          <p id={camerasErrorId} className={styles.fieldError}>
            {camerasError}
          </p>
        )}
      </fieldset>

      <DateField
        label="Last day (optional)"
        hint="For contractors: access ends at midnight (UK time) after this day. Leave empty for no end. For example, 27 3 2026."
        min={minimumLastDay}
        value={draft.lastDay}
        showError={showErrors}
        onChange={(lastDay) => update({ lastDay })}
      />
    </>
  );
}
