import type { TeamMember } from '@farmcam/contract';
import { useState } from 'react';
import { Button } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { Loader } from '../../../components/ui/spinner.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { useAccess } from '../../../lib/access.ts';
import { ukDayOf } from '../../../lib/uk-time.ts';
import { useTeam } from '../api/fetch-team.ts';
import { useResendInvitation } from '../api/resend-invitation.ts';
import { EditMemberModal } from './edit-member-modal.tsx';
import { InviteForm } from './invite-form.tsx';
import { MemberList } from './member-list.tsx';
import { RemoveMemberModal } from './remove-member-modal.tsx';
import styles from './team-page.module.css';

export const emptyTeamText =
  'Nobody else can see this account yet. Invite a manager or a viewer below.';

/**
 * Team (/team, the owner's; docs/decisions/093): who else can see this account, with which role,
 * cameras and last day; invite, change, remove, send an invitation again. What happened is said in
 * one live region, so a screen reader hears the result of each action.
 */
export function TeamPage() {
  const access = useAccess();
  const team = useTeam(access?.can.manageTeam === true);
  const resend = useResendInvitation();
  const [editing, setEditing] = useState<TeamMember | null>(null);
  const [removing, setRemoving] = useState<TeamMember | null>(null);
  const [announcement, setAnnouncement] = useState<{ text: string; isError: boolean } | null>(null);
  const announce = (text: string, isError = false) => setAnnouncement({ text, isError });
  const now = new Date();
  const today = ukDayOf(now);

  if (access && !access.can.manageTeam) return <NotForYou />;

  let content;
  if (team.isPending) {
    content = <Loader label="Loading your team…" />;
  } else if (team.isError) {
    content = (
      <Card title="People with access">
        <p role="alert" className={styles.formError}>
          {errorMessage(team.error, 'Could not load your team, please try again.')}
        </p>
        <Button variant="secondary" onClick={() => void team.refetch()} isLoading={team.isFetching}>
          Try again
        </Button>
      </Card>
    );
  } else {
    const { members, cameras } = team.data;
    content = (
      <>
        <Card title="People with access">
          {access && (
            <p className={styles.owner}>
              <strong>{access.accountEmail}</strong> — Owner: everything, including payments and the
              team.
            </p>
          )}
          {members.length === 0 ? (
            <p className={styles.empty}>{emptyTeamText}</p>
          ) : (
            <MemberList
              members={members}
              now={now}
              onEdit={setEditing}
              onRemove={setRemoving}
              resendingId={resend.isPending ? (resend.variables ?? null) : null}
              onResend={(member) => {
                setAnnouncement(null);
                resend.mutate(member.id, {
                  onSuccess: () => announce(`A new invitation was sent to ${member.email}.`),
                  onError: (failure) =>
                    announce(
                      errorMessage(failure, 'The invitation could not be sent again.'),
                      true,
                    ),
                });
              }}
            />
          )}
        </Card>
        <InviteForm
          cameras={cameras}
          minimumLastDay={today}
          onInvited={(email) => announce(`Invitation sent to ${email}.`)}
        />
        <EditMemberModal
          member={editing}
          cameras={cameras}
          minimumLastDay={today}
          onClose={() => setEditing(null)}
          onSaved={(email) => announce(`Access of ${email} changed.`)}
        />
        <RemoveMemberModal
          member={removing}
          onClose={() => setRemoving(null)}
          onRemoved={(email) => announce(`${email} was removed and signed out.`)}
        />
      </>
    );
  }

  return (
    <div className={styles.page}>
      <p className={styles.intro}>
        Share cameras with the people who work on the farm. Each person signs in with their own
        e-mail and sees only what their role allows.
      </p>
      {/* Always in the page (empty when there is nothing to say), so its changes are announced. */}
      <p
        role="status"
        className={announcement?.isError ? styles.announcementError : styles.announcement}
      >
        {announcement?.text}
      </p>
      {content}
    </div>
  );
}

/** Someone who may not manage the team opened /team (e.g. an old bookmark). */
function NotForYou() {
  return (
    <Card>
      <p>Only the account owner can see and change who has access to this account.</p>
    </Card>
  );
}
