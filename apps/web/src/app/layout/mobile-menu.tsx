import { useCallback, useEffect, useId, useState } from 'react';
import { useModalDialog } from '../../components/ui/use-modal-dialog.ts';
import { BrandLink } from './brand-link.tsx';
import { NavigationMenu } from './navigation-menu.tsx';
import type { NavigationKind } from './navigation-menu.tsx';
import { SignedInAs } from './signed-in-as.tsx';
import styles from './mobile-menu.module.css';

// The width above which the sidebar shows instead (spec: 850px and under is mobile).
const wideScreenQuery = '(min-width: 851px)';

/** Narrow screens: a top bar with a menu button opening a slide-in navigation panel. */
export function MobileMenu({ kind, homeHref }: { kind: NavigationKind; homeHref: string }) {
  const [isOpen, setIsOpen] = useState(false);
  const close = useCallback(() => setIsOpen(false), []);
  const dialog = useModalDialog(isOpen, close);
  const panelId = useId();

  // A phone turned sideways can cross into the sidebar layout, where the panel is hidden: close it,
  // or the page would stay inert behind an invisible modal.
  useEffect(() => {
    if (!isOpen) return;
    const wideScreen = window.matchMedia(wideScreenQuery);
    const closeOnWideScreen = (event: MediaQueryListEvent) => {
      if (event.matches) close();
    };
    wideScreen.addEventListener('change', closeOnWideScreen);
    return () => wideScreen.removeEventListener('change', closeOnWideScreen);
  }, [isOpen, close]);

  return (
    <header className={styles.bar}>
      <BrandLink to={homeHref} />
      <button
        type="button"
        className={styles.menuButton}
        aria-expanded={isOpen}
        aria-controls={panelId}
        onClick={() => setIsOpen(true)}
      >
        <span className={styles.hamburger} aria-hidden="true" />
        Menu
      </button>
      <dialog
        {...dialog}
        id={panelId}
        className={styles.panel}
        aria-label="Menu"
        onClick={(event) => {
          if (event.target === event.currentTarget) close();
        }}
      >
        <nav className={styles.panelContent} aria-label="Main menu">
          <div className={styles.panelHeader}>
            <span className={styles.panelTitle}>Menu</span>
            <button type="button" className={styles.closeButton} onClick={close}>
              <span aria-hidden="true">×</span>
              <span className="visually-hidden">Close menu</span>
            </button>
          </div>
          {kind === 'customer' && <SignedInAs />}
          <NavigationMenu kind={kind} onNavigate={close} />
        </nav>
      </dialog>
    </header>
  );
}
