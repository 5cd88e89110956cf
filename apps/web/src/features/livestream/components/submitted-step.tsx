import { cameraNameOf } from '@farmcam/contract/rules';
import type { LivestreamCamera, LivestreamSummary } from '@farmcam/contract';
import { useState } from 'react';
import { Link } from '../../../lib/router/index.ts';
import { Button, buttonClassName } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { TextField } from '../../../components/ui/text-field.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { useClipStatus } from '../api/clip-status.ts';
import { ClipPreview } from './clip-preview.tsx';
import { QuickShareModal } from './quick-share-modal.tsx';
import { useTemporaryLabel } from './use-temporary-label.ts';
import styles from './livestream-setup.module.css';

type CopyLabel = 'Copy Code' | 'Copied!' | 'Copy Failed';
type ShareLabel = 'Share via Email' | 'Sharing...' | 'Shared!' | 'Share Failed';

/** Step 3 (docs/requirements.md#livestream-setup, Submitted): the preview, the embed code, and ways to pass it on. */
export function SubmittedStep({
  camera,
  livestream,
  previewKey,
  firstClipKey,
  previewStartError,
  supportEmail,
  onShare,
}: {
  camera: LivestreamCamera;
  livestream: LivestreamSummary;
  previewKey: string | undefined;
  /** The first full clip, recorded right after the schedule was saved. */
  firstClipKey?: string | undefined;
  previewStartError: string | null;
  supportEmail: string;
  /** Resolves when the code was e-mailed; rejects when it was not. */
  onShare: (email: string) => Promise<void>;
}) {
  const [copyLabel, showCopy] = useTemporaryLabel<CopyLabel>('Copy Code');
  const [shareLabel, showShare] = useTemporaryLabel<ShareLabel>('Share via Email');
  const [email, setEmail] = useState('');
  /** The server's reason when sharing was refused; stays until the next attempt. */
  const [shareError, setShareError] = useState<string | null>(null);
  const [isQuickShareOpen, setIsQuickShareOpen] = useState(false);
  const cameraName = cameraNameOf(camera.nicknameInDatabase, camera.SIM_ICCID);
  const preview = useClipStatus(camera.SIM_ICCID, previewKey);
  const firstClip = useClipStatus(camera.SIM_ICCID, firstClipKey);
  // The server's reason (what went wrong and what to do) of the first recording that failed:
  // a camera that cannot be recorded is not "streaming" (docs/decisions/046).
  const recordingProblem =
    (firstClip.data?.status === 'failed' ? firstClip.data.error : null) ??
    (preview.data?.status === 'failed' ? preview.data.error : null) ??
    previewStartError;
  const isFirstClipReady = firstClip.data?.status === 'ready';

  async function copyCode() {
    try {
      await navigator.clipboard.writeText(livestream.embedCode);
      showCopy('Copied!');
    } catch {
      showCopy('Copy Failed');
    }
  }

  async function shareByEmail() {
    // docs/requirements.md#states: sharing does nothing while the e-mail is empty.
    if (email.trim() === '' || shareLabel === 'Sharing...') return;
    showShare('Sharing...', false);
    setShareError(null);
    try {
      await onShare(email.trim());
      setEmail('');
      showShare('Shared!');
    } catch (error) {
      // docs/requirements.md#states: "Share Failed" for 2 s; the reason stays beside it (decision 046).
      showShare('Share Failed');
      setShareError(errorMessage(error, 'The code could not be sent. Please try again.'));
    }
  }

  return (
    <Card title={recordingProblem ? 'Camera Not Recording' : 'Live Stream Active'}>
      {recordingProblem ? (
        <div className={styles.problem} role="alert">
          <p>
            <strong>{cameraName}</strong> could not be recorded. {recordingProblem}
          </p>
          <p>
            Your schedule is saved and each scheduled recording tries again, but your website has no
            new video to show until a recording works. If this keeps happening, contact support at{' '}
            <a href={`mailto:${supportEmail}`}>{supportEmail}</a>.
          </p>
        </div>
      ) : isFirstClipReady || firstClipKey === undefined ? (
        <p>
          <strong>{cameraName}</strong> is now streaming: your website will show its latest clip on
          a loop, recorded on the schedule you chose.
        </p>
      ) : (
        <p role="status">
          <strong>{cameraName}</strong> is set up: its first clip is being recorded now. Your
          website will show its latest clip on a loop, recorded on the schedule you chose.
        </p>
      )}
      <ClipPreview
        cameraId={camera.SIM_ICCID}
        storageKey={previewKey}
        startError={previewStartError}
      />
      <dl className={styles.details}>
        <div>
          <dt>Camera ID</dt>
          <dd>{camera.SIM_ICCID}</dd>
        </div>
        <div>
          <dt>Quality</dt>
          <dd>{livestream.quality}</dd>
        </div>
      </dl>
      <p className={styles.note}>The preview lasts only 5 seconds.</p>

      <section className={styles.important} aria-labelledby="livestream-important">
        <h3 id="livestream-important">Important</h3>
        <ol>
          <li>
            Livestreaming is a new feature. If you see no preview, contact support at{' '}
            <a href={`mailto:${supportEmail}`}>{supportEmail}</a> and we will configure your camera
            by hand.
          </li>
          <li>
            If the code is not added to your website within 10 days, the recording schedule is
            switched off.
          </li>
          <li>If the time shown on your camera is wrong, correct it in the camera’s app.</li>
        </ol>
      </section>

      <section className={styles.section} aria-labelledby="livestream-code">
        <h3 id="livestream-code">Code for Your Website Manager</h3>
        <p className={styles.hint}>
          Paste this into the web page where the livestream should appear. It contains no password
          or account detail.
        </p>
        <pre className={styles.code} tabIndex={0} aria-label="Embed code">
          <code>{livestream.embedCode}</code>
        </pre>
        <div className={styles.buttonRow}>
          <Button onClick={() => void copyCode()} aria-live="polite">
            {copyLabel}
          </Button>
          <Button variant="secondary" onClick={() => setIsQuickShareOpen(true)}>
            Share
          </Button>
        </div>
      </section>

      <section className={styles.section} aria-labelledby="livestream-share">
        <h3 id="livestream-share">Share Livestream Access</h3>
        <form
          className={styles.shareForm}
          onSubmit={(event) => {
            event.preventDefault();
            void shareByEmail();
          }}
        >
          <TextField
            label="E-mail address"
            hint="We e-mail the code with instructions, for example to whoever runs your website."
            type="email"
            autoComplete="email"
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
          <Button type="submit" aria-live="polite">
            {shareLabel}
          </Button>
          {shareError && (
            <p className={styles.shareError} role="alert">
              {shareError}
            </p>
          )}
        </form>
      </section>

      <Link to={paths.dashboard.href()} className={buttonClassName({ variant: 'secondary' })}>
        Back to Dashboard
      </Link>

      <QuickShareModal
        isOpen={isQuickShareOpen}
        onClose={() => setIsQuickShareOpen(false)}
        onShare={onShare}
      />
    </Card>
  );
}
