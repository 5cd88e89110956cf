/**
 * Files on their way into storage (docs/decisions/105). A recorded clip or a built timelapse
 * exists once, on this machine's disk, until storage has it: `store` puts it, trying again after
 * 1 and 3 s when storage fails (a blip), and if storage still fails it moves the file into
 * `DATA_DIR/uploads` (the spool) instead of deleting it. Each worker process looks at its
 * machine's spool after each heartbeat (`retryDue`) and stores what waits there, oldest first,
 * once its owner's row is claimed for this process; when storage still fails it waits 10 s,
 * doubling to 5 minutes, and tries again with one file.
 *
 * Never lost: a file is deleted only once its owner recorded it stored, or once nothing waits for
 * it any more (its row was given up or deleted). Never two: a stored object's key is its owner's
 * own (a retry replaces the same object), and one process at a time holds the owner's row.
 *
 * The spool is the machine's, under the data directory the operator sized (not the per-process
 * temporary folder, which is deleted when its process dies); a machine lost for good loses what
 * its spool held, and its owners are given up after `giveUpAfterDays`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../../errors.ts';
import type { ClipStorage } from './storage.ts';

export const uploadSpoolPolicy = {
  /** Waits between the tries `store` makes at once (storage blips for a second or two). */
  immediateRetryDelaysMs: [1_000, 3_000],
  /** After a look at the spool that found storage failing: the wait, doubling to the maximum. */
  firstWaitMs: 10_000,
  maxWaitMs: 5 * 60_000,
  /** A row still waiting for its file this long is given up: no process has the file. */
  giveUpAfterDays: 7,
} as const;

export const uploadKinds = ['clip', 'timelapse'] as const;
export type UploadKind = (typeof uploadKinds)[number];

/** What the owner of a kind of file (clips, timelapses) does around the spool's uploads. */
export interface PendingUploadOwner {
  /**
   * Takes the waiting row for this process before an upload: its storage key; `later` when it
   * is not waiting yet (the process that recorded it is about to mark it) or another process
   * holds it; `unwanted` when nothing waits for the file any more.
   */
  claim(id: string): Promise<{ key: string; contentType: string } | 'later' | 'unwanted'>;
  /** The file is in storage: the row says so (only while this process holds it). */
  stored(id: string, sizeBytes: number): Promise<void>;
  /** The upload failed: the row waits again for anyone. */
  release(id: string): Promise<void>;
}

type Log = Record<'info' | 'warn', (object: object, message: string) => void>;

export type StoreOutcome = { isStored: true; sizeBytes: number } | { isStored: false };

export interface UploadSpool {
  /**
   * Puts the file under `key`, with the quick retries; when storage keeps failing, moves the file
   * into the spool for `retryDue` and answers `isStored: false` (the caller marks its row as
   * waiting). The caller deletes `filePath` afterwards either way (moved: nothing left there).
   */
  store(file: {
    key: string;
    filePath: string;
    contentType: string;
    kind: UploadKind;
    id: string;
  }): Promise<StoreOutcome>;
  /** Stores what waits in this machine's spool, unless storage failed a moment ago. */
  retryDue(owners: Record<UploadKind, PendingUploadOwner>): Promise<{ stored: number }>;
  /** The spool folder (DATA_DIR/uploads). */
  readonly folder: string;
}

/** A key or a content type we made wrong: no retry will store it. */
function isOurMistake(error: unknown): boolean {
  return error instanceof AppError && error.code === 'VALIDATION_FAILED';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createUploadSpool(deps: {
  storage: ClipStorage;
  folder: string;
  log: Log;
  /** Shorter waits in tests. */
  immediateRetryDelaysMs?: readonly number[];
  now?: () => number;
}): UploadSpool {
  const { storage, folder, log } = deps;
  const now = deps.now ?? Date.now;
  const delays = deps.immediateRetryDelaysMs ?? uploadSpoolPolicy.immediateRetryDelaysMs;
  /** Looks at the spool in a row that found storage failing; 0 while it works. */
  let failedLooks = 0;
  let nextLookAt = 0;
  let looking: Promise<{ stored: number }> | undefined;

  const spoolPath = (kind: UploadKind, id: string) => path.join(folder, `${kind}.${id}.mp4`);

  async function moveIntoSpool(filePath: string, destination: string): Promise<void> {
    await fs.promises.mkdir(folder, { recursive: true });
    try {
      await fs.promises.rename(filePath, destination);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      // Another file system: copied beside its place, then renamed, so the spool never holds half.
      const partial = `${destination}.partial`;
      await fs.promises.copyFile(filePath, partial);
      await fs.promises.rename(partial, destination);
      await fs.promises.rm(filePath, { force: true });
    }
  }

  async function look(owners: Record<UploadKind, PendingUploadOwner>) {
    let entries: { kind: UploadKind; id: string; filePath: string; mtimeMs: number }[] = [];
    try {
      for (const name of await fs.promises.readdir(folder)) {
        const match = /^(clip|timelapse)\.([0-9a-f-]{36})\.mp4$/.exec(name);
        if (!match) continue;
        const filePath = path.join(folder, name);
        const { mtimeMs } = await fs.promises.stat(filePath).catch(() => ({ mtimeMs: 0 }));
        entries.push({ kind: match[1] as UploadKind, id: match[2]!, filePath, mtimeMs });
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { stored: 0 };
      throw error;
    }
    entries = entries.sort((left, right) => left.mtimeMs - right.mtimeMs);
    let stored = 0;
    for (const entry of entries) {
      const owner = owners[entry.kind];
      const claimed = await owner.claim(entry.id);
      if (claimed === 'later') continue;
      if (claimed === 'unwanted') {
        await fs.promises.rm(entry.filePath, { force: true });
        continue;
      }
      let sizeBytes: number;
      try {
        ({ sizeBytes } = await storage.putFile(claimed.key, entry.filePath, claimed.contentType));
      } catch (error) {
        await owner.release(entry.id);
        failedLooks += 1;
        nextLookAt =
          now() +
          Math.min(
            uploadSpoolPolicy.maxWaitMs,
            uploadSpoolPolicy.firstWaitMs * 2 ** (failedLooks - 1),
          );
        if (failedLooks === 1) {
          log.warn(
            { err: error, waiting: entries.length - stored },
            'Storage still fails: recorded files wait on this machine and are stored when it answers',
          );
        }
        return { stored };
      }
      await owner.stored(entry.id, sizeBytes);
      await fs.promises.rm(entry.filePath, { force: true });
      stored += 1;
    }
    if (failedLooks > 0) {
      log.info({ stored }, 'Storage answers again: the files that waited are stored');
    }
    failedLooks = 0;
    return { stored };
  }

  return {
    folder,
    async store(file) {
      let lastError: unknown;
      for (let attempt = 0; attempt <= delays.length; attempt += 1) {
        if (attempt > 0) await sleep(delays[attempt - 1]!);
        try {
          return {
            isStored: true,
            ...(await storage.putFile(file.key, file.filePath, file.contentType)),
          };
        } catch (error) {
          if (isOurMistake(error)) throw error;
          lastError = error;
        }
      }
      await moveIntoSpool(file.filePath, spoolPath(file.kind, file.id));
      log.warn(
        { err: lastError, kind: file.kind, id: file.id },
        'Storage fails: the file is kept on this machine and stored when storage answers',
      );
      return { isStored: false };
    },
    retryDue(owners) {
      if (now() < nextLookAt) return Promise.resolve({ stored: 0 });
      // One look at a time in a process (the heartbeat and a test may both ask).
      looking ??= look(owners).finally(() => {
        looking = undefined;
      });
      return looking;
    },
  };
}
