import { Button } from '../../components/ui/button.tsx';
import { useInstallOffer } from '../../lib/install.ts';
import styles from './install-hint.module.css';

/**
 * Where the browser offers to install the portal (Chromium's browsers on a phone or a desktop),
 * a short hint says what that gives, with Install and Not now; Not now is remembered on the
 * device (decision 117). Nothing shows where the browser makes no offer. The hint is docked at
 * the bottom of the screen, as the browser's own install bar is: it arrives after the page has
 * painted, and in the page's flow it pushed everything under it down.
 */
export function InstallHint() {
  const offer = useInstallOffer();
  if (!offer.isOffered) return null;
  return (
    <>
      {/* Room at the end of the page, so the docked hint covers none of it when scrolled down. */}
      <div className={styles.room} aria-hidden="true" />
      <section className={styles.hint} aria-labelledby="install-hint-title">
        <img src="/icons/icon-192.png" alt="" width={48} height={48} className={styles.icon} />
        <div className={styles.text}>
          <h2 id="install-hint-title" className={styles.title}>
            Put Farmcam Portal on your home screen
          </h2>
          <p className={styles.body}>
            It opens straight to your cameras, quickly on a weak signal, and shows what it last knew
            when there is none.
          </p>
        </div>
        <div className={styles.actions}>
          <Button onClick={() => void offer.install()}>Install</Button>
          <Button variant="secondary" onClick={offer.dismiss}>
            Not now
          </Button>
        </div>
      </section>
    </>
  );
}
