import { NavLink } from 'react-router';
import { Chip } from '../../components/ui/chip.tsx';
import { classNames } from '../../components/ui/class-names.ts';
import { companyWebsiteUrl, paths } from '../../config/paths.ts';
import { useLogout } from '../../features/auth/api/logout.ts';
import styles from './navigation-menu.module.css';

/** Customers get the portal's pages; staff (outside a customer's portal) get the staff area. */
export type NavigationKind = 'customer' | 'staff';

interface NavigationLink {
  label: string;
  href: string;
  isNew?: boolean;
}

const navigationLinks: Record<NavigationKind, NavigationLink[]> = {
  customer: [
    { label: 'Account', href: paths.dashboard.href() },
    { label: 'Activate', href: paths.activate.href() },
    { label: 'Livestreaming', href: paths.livestreaming.href(), isNew: true },
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
  const itemClassName = ({ isActive }: { isActive: boolean }) =>
    classNames(styles.item, isActive && styles.active);

  return (
    <ul className={styles.list}>
      {navigationLinks[kind].map((link) => (
        <li key={link.href}>
          <NavLink to={link.href} end className={itemClassName} onClick={onNavigate}>
            {link.label}
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
