import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useLayoutEffect, useRef } from 'react';
import { Link, Outlet, useLocation, useMatches } from '../../lib/router/index.ts';
import { classNames } from '../../components/ui/class-names.ts';
import { paths } from '../../config/paths.ts';
import { ImpersonationBanner } from '../../features/auth/components/impersonation-banner.tsx';
import { useIsSignedIn } from '../../lib/auth-store.ts';
import { refreshAccess } from '../../lib/current-user.ts';
import { DeferredToastContainer } from '../../lib/toast.tsx';
import { usePageTitleOverride } from '../../lib/page-title.ts';
import { BrandLink } from './brand-link.tsx';
import { InstallHint } from './install-hint.tsx';
import { LastKnownNotice } from './last-known-notice.tsx';
import { MobileMenu } from './mobile-menu.tsx';
import { NavigationMenu } from './navigation-menu.tsx';
import type { NavigationKind } from './navigation-menu.tsx';
import { SignedInAs } from './signed-in-as.tsx';
import { findRouteHandle } from './route-handle.ts';
import styles from './frame-layout.module.css';

const mainId = 'main-content';
/** docs/requirements.md#toasts: toasts close after 3.5 s unless a toast says otherwise. */
const toastAutoCloseMs = 3500;
const productName = 'Farmcam Portal';

/**
 * The page frame (docs/requirements.md#screens): navigation only with a token (a sidebar on wide screens, a menu on
 * narrow ones), then the page's title from its route, an optional back link, and the page.
 */
export function FrameLayout({ navigation }: { navigation: NavigationKind }) {
  const isSignedIn = useIsSignedIn();
  const { pathname } = useLocation();
  const handle = findRouteHandle(useMatches());
  const pageTitle = usePageTitleOverride();
  const routeTitle =
    typeof handle?.title === 'function' ? handle.title({ isSignedIn }) : handle?.title;
  const title = pageTitle ?? routeTitle;
  const homeHref = navigation === 'staff' ? paths.staff.href() : paths.dashboard.href();
  const headingRef = useMoveFocusToHeadingOnNavigation();
  useRefreshAccessOnNavigation(isSignedIn);

  useEffect(() => {
    document.title = title ? `${title} · ${productName}` : productName;
  }, [title]);

  return (
    <div className={classNames(styles.frame, isSignedIn ? styles.signedIn : styles.signedOut)}>
      <a className={styles.skipLink} href={`#${mainId}`}>
        Skip to content
      </a>
      {isSignedIn && (
        <>
          <aside className={styles.sidebar}>
            <BrandLink to={homeHref} />
            {navigation === 'customer' && <SignedInAs />}
            <nav aria-label="Main">
              <NavigationMenu kind={navigation} />
            </nav>
          </aside>
          <MobileMenu kind={navigation} homeHref={homeHref} />
        </>
      )}
      <div className={styles.column}>
        {isSignedIn && <ImpersonationBanner />}
        <main id={mainId} className={styles.main} tabIndex={-1}>
          {!isSignedIn && (
            <Link to={paths.login.href()} className={styles.logoLink}>
              <img src="/logo.svg" alt={`${productName} home`} width={80} height={80} />
            </Link>
          )}
          {handle?.backTo && (
            <Link to={handle.backTo} className={styles.backLink}>
              <span aria-hidden="true">←</span> Back
            </Link>
          )}
          {title && (
            <h1 ref={headingRef} className={styles.title} tabIndex={-1}>
              {title}
            </h1>
          )}
          {/*
           * docs/requirements.md#toasts: top-centre, 3.5 s; placed under the title, never over it, and kept at the
           * top of the screen once the title has scrolled away (decision 115).
           */}
          <div className={styles.toastAnchor}>
            <DeferredToastContainer position="top-center" autoClose={toastAutoCloseMs} />
          </div>
          {isSignedIn && navigation === 'customer' && <LastKnownNotice />}
          <Outlet />
          {/*
           * On the page the installed app opens at, not on every page; after the page, docked at
           * the bottom of the screen, because the browser's offer comes after the cards have
           * painted and a hint above them would push them down (Lighthouse's layout shift).
           */}
          {isSignedIn && navigation === 'customer' && pathname === paths.dashboard.href() && (
            <InstallHint />
          )}
        </main>
      </div>
    </div>
  );
}

/**
 * After a client-side navigation, screen readers would stay wherever the click happened; moving
 * focus to the new page's title announces it, as a full page load would.
 */
function useMoveFocusToHeadingOnNavigation() {
  const headingRef = useRef<HTMLHeadingElement>(null);
  const { pathname } = useLocation();
  const previousPathname = useRef(pathname);

  // Before the new page is painted, so focus is never taken from a field the person already chose.
  useLayoutEffect(() => {
    if (previousPathname.current === pathname) return;
    previousPathname.current = pathname;
    headingRef.current?.focus({ preventScroll: true });
  }, [pathname]);

  return headingRef;
}

/**
 * Each move to another page asks the server again what this person may do (one small GET), so a
 * role the owner changed meanwhile shows at once rather than after a reload (decision 093).
 */
function useRefreshAccessOnNavigation(isSignedIn: boolean) {
  const queryClient = useQueryClient();
  const { pathname } = useLocation();
  const previousPath = useRef(pathname);
  useEffect(() => {
    if (previousPath.current === pathname) return;
    previousPath.current = pathname;
    if (isSignedIn) void refreshAccess(queryClient);
  }, [pathname, isSignedIn, queryClient]);
}
