import type { Camera } from '@farmcam/contract';
import { useCallback, useEffect, useState } from 'react';
import { CameraCard } from './camera-card.tsx';
import styles from './camera-grid.module.css';
import { RenameCameraModal } from './rename-camera-modal.tsx';

/** Marked after the cards are on screen, for the 1,000-card budget (e2e) and field timing. */
export const cardsRenderedMark = 'camera-grid:rendered';

/**
 * The cards (spec §2: columns at least 18rem wide). One rename dialog for the whole grid, and
 * memoised cards that keep nothing of their own, so a grid of a thousand stays quick.
 */
export function CameraGrid({ cameras }: { cameras: Camera[] }) {
  const [renaming, setRenaming] = useState<Camera | null>(null);
  const openRename = useCallback((camera: Camera) => setRenaming(camera), []);
  const closeRename = useCallback(() => setRenaming(null), []);

  useEffect(() => {
    performance.mark(cardsRenderedMark, { detail: { cards: cameras.length } });
  }, [cameras]);

  return (
    <>
      <ul className={styles.grid}>
        {cameras.map((camera) => (
          <li key={camera.SIM_ICCID} className={styles.item}>
            <CameraCard camera={camera} onRename={openRename} />
          </li>
        ))}
      </ul>
      <RenameCameraModal camera={renaming} onClose={closeRename} />
    </>
  );
}
