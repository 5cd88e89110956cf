import { EmailText } from '../../components/ui/email-text.tsx';
import { roleNames, useAccess } from '../../lib/access.ts';
import styles from './signed-in-as.module.css';

/**
 * Who is signed in and with which role (docs/decisions/093): a member also sees whose account
 * they are in, so a Viewer knows why there is less to do. Nothing until user-data has answered.
 */
export function SignedInAs() {
  const access = useAccess();
  if (!access) return null;
  const isMember = access.role !== 'owner';
  return (
    <section className={styles.person} aria-label="Signed in">
      <p>
        <EmailText address={access.personEmail} className={styles.email} />
      </p>
      <p className={styles.role}>
        <span className={styles.roleName}>{roleNames[access.role]}</span>
        {isMember && (
          <>
            {' '}
            on the account of <EmailText address={access.accountEmail} className={styles.email} />
          </>
        )}
      </p>
    </section>
  );
}
