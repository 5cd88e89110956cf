import { formatUkTime } from '@farmcam/contract/rules';
import { Link } from '../../../lib/router/index.ts';
import { buttonClassName } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { Loader, Spinner } from '../../../components/ui/spinner.tsx';
import { paths } from '../../../config/paths.ts';
import { useAbilities } from '../../../lib/access.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { useDemoCamera } from '../api/demo-camera.ts';
import { useLivestreamCameras } from '../api/livestream-cameras.ts';
import { useShowcase } from '../api/showcase.ts';
import { DemoCameraNotice } from './demo-camera-notice.tsx';
import { LivestreamManager } from './livestream-manager.tsx';
import styles from './livestreaming-page.module.css';

/** Made from the product itself: the setup journey, recorded by the e2e suite (docs/decisions/045). */
export const setupVideoSource = '/media/livestream-setup.mp4';
export const setupVideoCaptions = '/media/livestream-setup.vtt';
export const setupVideoPoster = '/media/livestream-setup.jpg';

const benefits = [
  {
    title: 'Show your farm to the world',
    text: 'Visitors to your website see what is happening on the farm today, from the lambing shed to the farm shop queue.',
  },
  {
    title: 'Always up to date',
    text: 'A fresh clip is recorded at the hours you choose, and your website always plays the latest one.',
  },
  {
    title: 'Light on data',
    text: 'Short clips instead of a constant stream: you see before you start how much of your plan it uses.',
  },
  {
    title: 'Easy for your web manager',
    text: 'One line of code to paste, with nothing secret in it. Copy it, or e-mail it straight to them.',
  },
];

/** Livestreaming marketing page (/livestreaming, docs/requirements.md#screens). */
export function LivestreamingPage() {
  // Setting up is for whoever may manage cameras (user-data access.can); a Viewer watches.
  const canSetUp = useAbilities().manageCameras;
  // The customer's livestreams come between the hero and the rest: until they are known the rest
  // waits, so it does not jump down when they arrive (layout shift on a phone).
  const livestreams = useLivestreamCameras();
  return (
    <div className={styles.page}>
      <DemoCameraNotice />
      <section className={styles.hero} aria-labelledby="livestream-hero">
        <div className={styles.heroText}>
          <h2 id="livestream-hero">Your camera, live on your website</h2>
          <p>
            With the Heavy Streaming plan, your camera records a short clip (15, 30 or 60 seconds)
            at the hours and on the days you choose. Your website plays the latest clip on a loop,
            so visitors always see the farm as it is today.
          </p>
          {canSetUp && (
            <Link to={paths.livestreamingSetup.href()} className={buttonClassName({})}>
              Set Up Livestream
            </Link>
          )}
        </div>
        <LiveDemo />
      </section>

      {livestreams.isPending ? (
        <Loader label="Loading your livestreams…" />
      ) : (
        <LivestreamingPageRest canSetUp={canSetUp} />
      )}
    </div>
  );
}

/** Your livestreams, then what livestreaming offers and how to set it up. */
function LivestreamingPageRest({ canSetUp }: { canSetUp: boolean }) {
  return (
    <>
      <LivestreamManager />

      <section aria-labelledby="livestream-benefits">
        <h2 id="livestream-benefits">Benefits</h2>
        <ul className={styles.benefits}>
          {benefits.map((benefit) => (
            <li key={benefit.title} className={styles.benefit}>
              <h3>{benefit.title}</h3>
              <p>{benefit.text}</p>
            </li>
          ))}
        </ul>
      </section>

      <div className={styles.columns}>
        <Card title="How it works">
          <ol className={styles.howItWorks}>
            <li>
              <strong>Pick your camera.</strong> We open its video stream to our recorders through
              its SIM; nothing to change on the camera.
            </li>
            <li>
              <strong>Choose the schedule.</strong> Hours of the day, days of the week, clip length
              and sound. We show how much data it will use.
            </li>
            <li>
              <strong>Add the code to your website.</strong> Copy it, or e-mail it to whoever runs
              your website. The video starts playing straight away.
            </li>
          </ol>
        </Card>
        <Card title="Requirements">
          <ul className={styles.requirements}>
            <li>A camera on an active Heavy Streaming plan.</li>
            <li>A website where you (or your web manager) can paste a piece of HTML.</li>
            <li>
              The code on your website within 10 days; otherwise we switch the schedule off to save
              your data.
            </li>
            <li>
              The camera’s clock set right (in the camera’s app), so clips show the right time.
            </li>
          </ul>
        </Card>
      </div>

      <section aria-labelledby="livestream-video">
        <h2 id="livestream-video">Setting up, in under a minute</h2>
        <p>The whole setup, recorded in the portal, from choosing the camera to the code.</p>
        <video
          className={styles.setupVideo}
          src={setupVideoSource}
          poster={setupVideoPoster}
          controls
          muted
          playsInline
          preload="metadata"
          aria-label="Video: setting up a livestream in the portal"
        >
          <track kind="captions" src={setupVideoCaptions} srcLang="en" label="English" default />
        </video>
      </section>

      {canSetUp && (
        <div>
          <Link to={paths.livestreamingSetup.href()} className={buttonClassName({})}>
            Set Up Livestream
          </Link>
        </div>
      )}
    </>
  );
}

/** A real clip from our demo camera, playing the way it would on your website. */
function LiveDemo() {
  const showcase = useShowcase();
  const demoCamera = useDemoCamera();
  let content;
  if (showcase.isError) {
    content = (
      <p className={styles.demoMessage}>
        {errorMessage(showcase.error, 'The live demo is not available right now.')}
      </p>
    );
  } else if (showcase.data?.url) {
    content = (
      <video
        className={styles.demoVideo}
        src={showcase.data.url}
        autoPlay
        muted
        loop
        playsInline
        aria-label="Live demo: the latest clip from our demo camera"
        data-testid="livestream-demo"
      />
    );
  } else if ((showcase.data && !showcase.data.isRecording) || demoCamera.data?.problem) {
    content = <p className={styles.demoMessage}>The live demo is not available right now.</p>;
  } else {
    content = (
      <p className={styles.demoMessage} role="status">
        <Spinner /> Recording a fresh clip from our demo camera…
      </p>
    );
  }
  const recordedAt = showcase.data?.recordedAt;
  return (
    <figure className={styles.demo}>
      <div className={styles.demoFrame}>{content}</div>
      <figcaption>
        Live demo
        {recordedAt && `: recorded ${formatUkTime(recordedAt)} UK time from our demo camera`}
      </figcaption>
    </figure>
  );
}
