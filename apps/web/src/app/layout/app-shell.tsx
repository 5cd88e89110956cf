import { Loader } from '../../components/ui/spinner.tsx';
import { classNames } from '../../components/ui/class-names.ts';
import { paths } from '../../config/paths.ts';
import { BrandLink } from './brand-link.tsx';
import frameStyles from './frame-layout.module.css';
import mobileStyles from './mobile-menu.module.css';

/**
 * The frame every page but `/` opens in before the app has started (decision 118): the sidebar on
 * a wide screen or the top bar on a phone, with the brand, and a loading line where the page
 * goes. Prerendered into index.html at build time (prerender-plugin.ts), so a first visit on a
 * slow connection paints it as soon as the HTML and the style sheet have arrived, and the
 * service worker serves it at once on later visits. The app's first render replaces it: who is
 * signed in, what they may do and the page's title are not known before then.
 */
export function AppShell() {
  const homeHref = paths.dashboard.href();
  return (
    <div className={classNames(frameStyles.frame, frameStyles.signedIn)}>
      <aside className={frameStyles.sidebar}>
        <BrandLink to={homeHref} />
      </aside>
      <header className={mobileStyles.bar}>
        <BrandLink to={homeHref} />
      </header>
      <div className={frameStyles.column}>
        <main className={frameStyles.main}>
          <Loader label="Opening Farmcam Portal…" />
          <noscript>
            <p>
              This page needs JavaScript, which is turned off in this browser.{' '}
              <a href={paths.login.href()}>Sign in</a> works without it.
            </p>
          </noscript>
        </main>
      </div>
    </div>
  );
}
