import type { TeamResponse } from '@farmcam/contract';
import { isValidEmail, maxEmailLength } from '@farmcam/contract/rules';
import { useState } from 'react';
import { Button } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { TextField } from '../../../components/ui/text-field.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { useInviteMember } from '../api/invite-member.ts';
import {
  accessBodyOf,
  cameraChoiceError,
  canSendAccess,
  emptyAccessDraft,
  MemberAccessFields,
} from './member-access-fields.tsx';
import type { MemberAccessDraft } from './member-access-fields.tsx';
import styles from './team-page.module.css';

export const invalidEmailMessage = 'Please enter a valid email';

export interface InviteFormProps {
  cameras: TeamResponse['cameras'];
  minimumLastDay: string;
  /** Tells the page what happened, for its announcement. */
  onInvited: (email: string) => void;
}

/** Invite someone by e-mail with a role, their cameras and an optional last day. */
export function InviteForm({ cameras, minimumLastDay, onInvited }: InviteFormProps) {
  const [email, setEmail] = useState('');
  const [draft, setDraft] = useState<MemberAccessDraft>(emptyAccessDraft);
  const [hasTried, setHasTried] = useState(false);
  const [serverError, setServerError] = useState<string | null>(null);
  const invite = useInviteMember();

  const emailError = hasTried && !isValidEmail(email) ? invalidEmailMessage : null;
  const camerasError = hasTried ? cameraChoiceError(draft) : null;

  return (
    <Card title="Invite someone">
      <form
        className={styles.form}
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          setHasTried(true);
          setServerError(null);
          if (!isValidEmail(email) || !canSendAccess(draft)) return;
          const address = email.trim();
          invite.mutate(
            { email: address, ...accessBodyOf(draft) },
            {
              onSuccess: () => {
                onInvited(address);
                setEmail('');
                setDraft(emptyAccessDraft);
                setHasTried(false);
              },
              onError: (failure) =>
                setServerError(errorMessage(failure, 'The invitation could not be sent.')),
            },
          );
        }}
      >
        <TextField
          label="E-mail address"
          hint="They get an e-mail with a link to join, valid for 7 days."
          type="email"
          name="email"
          autoComplete="off"
          maxLength={maxEmailLength}
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          error={emailError}
        />
        <MemberAccessFields
          draft={draft}
          onChange={setDraft}
          cameras={cameras}
          camerasError={camerasError}
          showErrors={hasTried}
          minimumLastDay={minimumLastDay}
        />
        {serverError && (
          <p role="alert" className={styles.formError}>
            {serverError}
          </p>
        )}
        <div className={styles.formActions}>
          <Button type="submit" isLoading={invite.isPending}>
            Send invitation
          </Button>
        </div>
      </form>
    </Card>
  );
}
