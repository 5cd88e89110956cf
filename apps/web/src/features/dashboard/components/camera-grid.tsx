import type { AccessAbilities, Camera } from '@farmcam/contract';
import { useCallback, useEffect, useState, type MouseEvent } from 'react';
import { useIsFirstScreenPainted } from '../../../lib/after-paint.ts';
import { useNavigate } from '../../../lib/router/index.ts';
import { useLiveViewCameras } from '../api/get-live-view-cameras.ts';
import { CameraCard } from './camera-card.tsx';
import styles from './camera-grid.module.css';
import { RenameCameraModal } from './rename-camera-modal.tsx';

/** Marked after the cards are on screen, for the 1,000-card budget (e2e) and field timing. */
export const cardsRenderedMark = 'camera-grid:rendered';

/**
 * The cards a first screen can show (a row of three on a computer; on a phone the first card is
 * already below the combined plan): the rest are built once that screen is painted.
 */
export const firstScreenCards = 3;

/**
 * How many cards to build now: all of them once the first screen has been painted, or at once
 * when a search or filter hides some (the first ones in order may not be the ones on show).
 */
function useCardsBuilt(total: number, isFiltered: boolean): number {
  const isFirstScreenPainted = useIsFirstScreenPainted();
  return isFirstScreenPainted || isFiltered ? total : Math.min(total, firstScreenCards);
}

/**
 * The cards (docs/requirements.md#screens: columns at least 18rem wide). One rename dialog for the whole grid, and
 * memoised cards that keep nothing of their own, so a grid of a thousand stays quick.
 */
export function CameraGrid({
  cameras,
  shownIds = null,
  supportEmail,
  abilities,
}: {
  cameras: Camera[];
  /** The cameras to show (the dashboard's search and filter); null: all. The rest stay mounted, hidden. */
  shownIds?: ReadonlySet<string> | null;
  supportEmail: string;
  /** What the signed-in person may do (user-data access.can): the cards hide the rest. */
  abilities: AccessAbilities;
}) {
  const [renaming, setRenaming] = useState<Camera | null>(null);
  const openRename = useCallback((camera: Camera) => setRenaming(camera), []);
  const closeRename = useCallback(() => setRenaming(null), []);
  const navigate = useNavigate();
  // Which cards offer Watch live, and their latest stills: a second, small answer that never
  // holds the cards back (issue 27).
  const liveView = useLiveViewCameras().data;

  // The cards' links are plain anchors (see CameraCardActions): follow them inside the app,
  // unless the visitor asked for a new tab or window.
  const followRoute = useCallback(
    (event: MouseEvent<HTMLUListElement>) => {
      if (event.defaultPrevented || event.button !== 0) return;
      if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      const anchor = (event.target as Element).closest('a[data-route]');
      const href = anchor?.getAttribute('href');
      if (!href) return;
      event.preventDefault();
      void navigate(href);
    },
    [navigate],
  );

  const built = useCardsBuilt(cameras.length, shownIds !== null);
  const isComplete = built === cameras.length;
  useEffect(() => {
    if (isComplete) performance.mark(cardsRenderedMark, { detail: { cards: cameras.length } });
  }, [cameras, isComplete]);

  return (
    <>
      <ul className={styles.grid} onClick={followRoute}>
        {cameras.slice(0, built).map((camera) => (
          <li
            key={camera.SIM_ICCID}
            className={styles.item}
            hidden={shownIds !== null && !shownIds.has(camera.SIM_ICCID)}
          >
            <CameraCard
              camera={camera}
              onRename={openRename}
              supportEmail={supportEmail}
              abilities={abilities}
              liveView={liveView?.get(camera.SIM_ICCID)}
            />
          </li>
        ))}
      </ul>
      <RenameCameraModal camera={renaming} onClose={closeRename} />
    </>
  );
}
