/**
 * Each camera's latest still (issue 27 item 5, decision 157): taken from what the camera already
 * sent, never by asking it for a picture, so it costs no mobile data. A live view leaves its
 * newest segment's picture when it ends; a recorded clip its last picture, found by the
 * workers' sweep within a minute of the clip being stored. The dashboard card and the camera
 * page show it with its time; a camera that recorded nothing shows none.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/client.ts';
import type { StillMaker } from '../../providers/recorder/still-maker.ts';
import type { ClipStorage } from '../../providers/storage/storage.ts';
import { cameraStillsRepository as repository } from './camera-stills.repository.ts';

/** Clips turned into stills per sweep: a backlog (a first start) clears over a few minutes. */
const stillsPerSweep = 10;

export interface CameraStillsDependencies {
  db: Database;
  storage: ClipStorage;
  maker: StillMaker;
  /** This process's own folder for the files being made. */
  workFolder: string;
  log: Pick<FastifyBaseLogger, 'info' | 'warn'>;
}

export type CameraStills = ReturnType<typeof createCameraStills>;

export function createCameraStills(deps: CameraStillsDependencies) {
  const { db } = deps;

  /** Makes the JPEG from `videoPath`, stores it and keeps it if it is the camera's newest. */
  async function keep(
    iccid: string,
    videoPath: string,
    takenAt: Date,
    source: 'clip' | 'live' | 'timelapse',
  ): Promise<void> {
    const jpegPath = path.join(deps.workFolder, `${randomUUID()}.jpg`);
    try {
      await deps.maker.extract({
        inputPath: videoPath,
        outputPath: jpegPath,
        at: source === 'live' ? 'start' : 'end',
      });
      const key = `stills/${iccid}/${takenAt.getTime()}-${randomUUID().slice(0, 8)}.jpg`;
      await deps.storage.putFile(key, jpegPath, 'image/jpeg');
      const { unusedKey } = await db.transaction((transaction) =>
        repository.saveIfNewer(transaction, { iccid, storageKey: key, takenAt, source }),
      );
      if (unusedKey) await deps.storage.delete(unusedKey).catch(() => undefined);
    } finally {
      await fs.promises.rm(jpegPath, { force: true });
    }
  }

  return {
    /** A live view ended: its newest segment (with the init segment before it) gives the still. */
    async fromLiveView(input: {
      iccid: string;
      initPath: string;
      segmentPath: string;
      at: Date;
    }): Promise<void> {
      await fs.promises.mkdir(deps.workFolder, { recursive: true });
      const videoPath = path.join(deps.workFolder, `${randomUUID()}.mp4`);
      try {
        // An fMP4 segment plays once its init segment is put before it.
        await fs.promises.writeFile(
          videoPath,
          Buffer.concat([
            await fs.promises.readFile(input.initPath),
            await fs.promises.readFile(input.segmentPath),
          ]),
        );
        await keep(input.iccid, videoPath, input.at, 'live');
      } finally {
        await fs.promises.rm(videoPath, { force: true });
      }
    },

    /** Cameras whose newest clip is newer than their still get a still from it. */
    async refreshFromClips(): Promise<{ made: number }> {
      let made = 0;
      const candidates = await repository.listClipsNewerThanStills(db, stillsPerSweep);
      if (candidates.length === 0) return { made };
      await fs.promises.mkdir(deps.workFolder, { recursive: true });
      for (const candidate of candidates) {
        const videoPath = path.join(deps.workFolder, `${randomUUID()}.mp4`);
        try {
          await deps.storage.copyToFile(candidate.storage_key, videoPath);
          await keep(candidate.sim_iccid, videoPath, new Date(candidate.taken_at), 'clip');
          made += 1;
        } catch (error) {
          deps.log.warn(
            { err: error, iccid: candidate.sim_iccid, key: candidate.storage_key },
            'No still from the newest clip',
          );
        } finally {
          await fs.promises.rm(videoPath, { force: true });
        }
      }
      return { made };
    },
  };
}
