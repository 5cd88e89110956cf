import type { MemberStatus, TeamMember } from '@farmcam/contract';
import { formatDay } from '@farmcam/contract/rules';
import { Button } from '../../../components/ui/button.tsx';
import { Chip } from '../../../components/ui/chip.tsx';
import { EmailText } from '../../../components/ui/email-text.tsx';
import type { ChipTone } from '../../../components/ui/chip.tsx';
import { roleNames } from '../../../lib/access.ts';
import { formatUkDateTime, lastUkDayOf } from '../../../lib/uk-time.ts';
import styles from './team-page.module.css';

const statusNames: Record<MemberStatus, string> = {
  invited: 'Invited',
  active: 'Active',
  expired: 'Expired',
};

const statusTones: Record<MemberStatus, ChipTone> = {
  invited: 'warning',
  active: 'success',
  expired: 'inactive',
};

export interface MemberListProps {
  members: TeamMember[];
  onEdit: (member: TeamMember) => void;
  onRemove: (member: TeamMember) => void;
  onResend: (member: TeamMember) => void;
  /** The member whose invitation is being sent again, if any. */
  resendingId: string | null;
  now: Date;
}

/** The account's members as a list of small cards (a table does not fit a phone). */
export function MemberList({
  members,
  onEdit,
  onRemove,
  onResend,
  resendingId,
  now,
}: MemberListProps) {
  return (
    <ul className={styles.members} aria-label="Members">
      {members.map((member) => (
        <MemberItem
          key={member.id}
          member={member}
          onEdit={onEdit}
          onRemove={onRemove}
          onResend={onResend}
          isResending={resendingId === member.id}
          now={now}
        />
      ))}
    </ul>
  );
}

function MemberItem({
  member,
  onEdit,
  onRemove,
  onResend,
  isResending,
  now,
}: Omit<MemberListProps, 'members' | 'resendingId'> & {
  member: TeamMember;
  isResending: boolean;
}) {
  const headingId = `member-${member.id}`;
  const about = <span className="visually-hidden"> {member.email}</span>;

  return (
    <li className={styles.member} aria-labelledby={headingId}>
      <div className={styles.memberHeader}>
        <h3 id={headingId} className={styles.memberEmail}>
          <EmailText address={member.email} />
        </h3>
        <Chip tone={statusTones[member.status]}>{statusNames[member.status]}</Chip>
      </div>
      <dl className={styles.facts}>
        <div>
          <dt>Role</dt>
          <dd>{roleNames[member.role]}</dd>
        </div>
        <div>
          <dt>Cameras</dt>
          <dd>
            {member.allCameras
              ? 'All cameras'
              : member.cameras.map((camera) => camera.nickname).join(', ') || 'None'}
          </dd>
        </div>
        <div>
          <dt>Access until</dt>
          <dd>
            {member.accessUntil === null
              ? 'No end date'
              : `End of ${formatDay(lastUkDayOf(member.accessUntil))}`}
          </dd>
        </div>
        {member.status === 'invited' && member.invitationExpiresAt !== null && (
          <div>
            <dt>Invitation</dt>
            <dd>
              {new Date(member.invitationExpiresAt) > now
                ? `Link valid until ${formatUkDateTime(member.invitationExpiresAt)}`
                : 'Link expired: send it again'}
            </dd>
          </div>
        )}
      </dl>
      <div className={styles.memberActions}>
        <Button variant="secondary" onClick={() => onEdit(member)}>
          Change access{about}
        </Button>
        {member.status === 'invited' && (
          <Button variant="secondary" onClick={() => onResend(member)} isLoading={isResending}>
            Resend invitation{about}
          </Button>
        )}
        {/* The red button is the confirmation's; here it only asks. */}
        <Button variant="secondary" onClick={() => onRemove(member)}>
          Remove{about}
        </Button>
      </div>
    </li>
  );
}
