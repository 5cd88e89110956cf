import { NavLink } from '../../lib/router/index.ts';
import { Chip } from '../../components/ui/chip.tsx';
import { classNames } from '../../components/ui/class-names.ts';
import { companyWebsiteUrl, paths } from '../../config/paths.ts';
import { useLogout } from '../../features/auth/api/logout.ts';
import { useAbilities, useAccess } from '../../lib/access.ts';
import type { AccessAbilities } from '@farmcam/contract';
import { ThemeChoiceControl } from '../../components/theme/theme-choice.tsx';
import styles from './navigation-menu.module.css';

/** Customers get the portal's pages; staff (outside a customer's portal) get the staff area. */
export type NavigationKind = 'customer' | 'staff';

interface NavigationLink {
  label: string;
  href: string;
  isNew?: boolean;
  /** Offered only when the signed-in person may use it (user-data's access.can). */
  needs?: keyof AccessAbilities;
  /**
   * What a team member (not the owner) reads instead: their page is about cameras someone else
   * owns and pays for, not an account of theirs (decisions 141, 170).
   */
  memberLabel?: string;
}

const navigationLinks: Record<NavigationKind, NavigationLink[]> = {
  customer: [
    { label: 'Account', memberLabel: 'Shared cameras', href: paths.dashboard.href() },
    { label: 'Activate', href: paths.activate.href(), needs: 'activateSims' },
    { label: 'Livestreaming', href: paths.livestreaming.href(), isNew: true },
    { label: 'Notifications', href: paths.notifications.href() },
    { label: 'Billing', href: paths.billing.href(), needs: 'manageBilling' },
    { label: 'Team', href: paths.team.href(), needs: 'manageTeam' },
    { label: 'Activity', href: paths.activity.href(), needs: 'viewActivity' },
  ],
  staff: [{ label: 'Customers', href: paths.staff.href() }],
};

export interface NavigationMenuProps {
  kind: NavigationKind;
  /** Called when an item is chosen, so the mobile menu can close. */
  onNavigate?: () => void;
}

export function NavigationMenu({ kind, onNavigate }: NavigationMenuProps) {
  const logout = useLogout();
  const abilities = useAbilities();
  const access = useAccess();
  const isMember = access !== null && access.role !== 'owner';
  const links = navigationLinks[kind].filter((link) => !link.needs || abilities[link.needs]);
  const itemClassName = ({ isActive }: { isActive: boolean }) =>
    classNames(styles.item, isActive && styles.active);

  return (
    <ul className={styles.list}>
      {links.map((link) => (
        <li key={link.href}>
          <NavLink to={link.href} end className={itemClassName} onClick={onNavigate}>
            {(isMember && link.memberLabel) || link.label}
            {link.isNew && <Chip tone="highlight">NEW</Chip>}
          </NavLink>
        </li>
      ))}
      <li>
        <a
          href={companyWebsiteUrl}
          target="_blank"
          rel="noopener noreferrer"
          className={styles.item}
          onClick={onNavigate}
        >
          Company website
          <span className="visually-hidden"> (opens in a new tab)</span>
          <span aria-hidden="true" className={styles.externalMark}>
            ↗
          </span>
        </a>
      </li>
      <li className={styles.separated}>
        <ThemeChoiceControl />
      </li>
      <li>
        <button
          type="button"
          className={styles.item}
          onClick={() => {
            onNavigate?.();
            logout();
          }}
        >
          Logout
        </button>
      </li>
    </ul>
  );
}
