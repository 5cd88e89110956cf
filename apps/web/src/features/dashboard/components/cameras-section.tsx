import type { AccessAbilities, Camera } from '@farmcam/contract';
import { cameraFindStateLabels } from '@farmcam/contract/rules';
import { useMemo, useState, type ReactNode } from 'react';
import { useSearchParams } from '../../../lib/router/index.ts';
import { Button } from '../../../components/ui/button.tsx';
import { useDebouncedValue } from '../../../lib/use-debounced-value.ts';
import {
  choiceOf,
  defaultChoice,
  findFromCameras,
  isChosen,
  isFiltered,
  orderCameras,
  searchOfChoice,
  shownSummary,
  type FinderChoice,
} from '../camera-finder.ts';
import { CameraFinderBar } from './camera-finder-bar.tsx';
import { CameraGrid } from './camera-grid.tsx';
import styles from './cameras-section.module.css';

/** Long enough for a word typed in one go, short enough to feel immediate. */
const typingPauseMs = 150;

/**
 * The dashboard's cameras with a way to find one among many (decision 140): search, filter and
 * order kept in the address, cameras needing attention first unless asked otherwise, a live
 * region saying how many are shown, and a way back to all of them when nothing matches.
 */
export function CamerasSection({
  cameras,
  supportEmail,
  abilities,
  header,
}: {
  cameras: Camera[];
  supportEmail: string;
  abilities: AccessAbilities;
  /** The section's heading and actions, above the search. */
  header: ReactNode;
}) {
  const [searchParams, setSearchParams] = useSearchParams();
  const isFindable = cameras.length >= findFromCameras;
  const addressed = isFindable ? choiceOf(searchParams) : defaultChoice;
  // The box shows each key at once; the grid follows when typing pauses.
  const [typed, setTyped] = useState(addressed.query);
  const query = useDebouncedValue(typed, typingPauseMs);
  const applied: FinderChoice = { ...addressed, query };
  // Every card stays mounted in the chosen order and those not chosen are hidden: clearing a
  // search shows a thousand cards again without building them anew.
  const ordered = useMemo(() => orderCameras(cameras, applied.sort), [cameras, applied.sort]);
  const shown = useMemo(
    () =>
      ordered.filter((camera) => isChosen(camera, { ...defaultChoice, query, show: applied.show })),
    [ordered, query, applied.show],
  );
  const shownIds = useMemo(
    () =>
      shown.length === ordered.length ? null : new Set(shown.map((camera) => camera.SIM_ICCID)),
    [shown, ordered],
  );

  const change = (next: FinderChoice) => {
    setTyped(next.query);
    setSearchParams(searchOfChoice(next, searchParams), { replace: true });
  };
  const clear = () => change({ ...defaultChoice, sort: addressed.sort });

  return (
    <section aria-labelledby="my-cameras-heading" className={styles.cameras}>
      {header}
      {isFindable && (
        <>
          <CameraFinderBar
            cameras={cameras}
            choice={{ ...addressed, query: typed }}
            onChange={change}
          />
          <div className={styles.summaryRow}>
            <p role="status" className={styles.summary}>
              {shownSummary(shown.length, cameras.length)}
            </p>
            {isFiltered(applied) && shown.length > 0 && (
              <button type="button" className={styles.linkButton} onClick={clear}>
                Clear search and filter
              </button>
            )}
          </div>
        </>
      )}
      <CameraGrid
        cameras={ordered}
        shownIds={shownIds}
        supportEmail={supportEmail}
        abilities={abilities}
      />
      {shown.length === 0 && (
        <div className={styles.empty}>
          <p className={styles.emptyTitle}>{noMatchSentence(applied)}</p>
          <p className={styles.muted}>
            Check the spelling, try the last digits of the SIM number, or show every camera.
          </p>
          <Button variant="secondary" onClick={clear}>
            Show all {cameras.length} cameras
          </Button>
        </div>
      )}
    </section>
  );
}

function noMatchSentence(choice: FinderChoice): string {
  const query = choice.query.trim();
  const label = choice.show === 'all' ? null : cameraFindStateLabels[choice.show];
  if (query === '') return label ? `No camera is under “${label}” right now.` : 'No camera here.';
  return `No camera matches “${query}”${label ? ` among “${label}”` : ''}.`;
}
