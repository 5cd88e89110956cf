/**
 * Each process's own temporary folder, `DATA_DIR/tmp/<instance id>/`: recordings are written
 * there before they are stored. Per process, so a sweep never deletes a file another process is
 * still writing; under the data directory, so it is on the disk the operator sized for it and
 * not in a machine-wide /tmp shared with everything else (docs/decisions/073).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Database } from '../db/client.ts';
import type { Clock } from './clock.ts';
import { liveInstanceIds } from './instance.ts';

/** The parent of every process's temporary folder. */
export function temporaryRoot(dataDir: string): string {
  return path.join(dataDir, 'tmp');
}

/** This process's temporary folder. */
export function instanceTemporaryFolder(dataDir: string, instanceId: string): string {
  return path.join(temporaryRoot(dataDir), instanceId);
}

/** Where this process's recorder writes its raw and trimmed files. */
export function recordingWorkFolder(dataDir: string, instanceId: string): string {
  return path.join(instanceTemporaryFolder(dataDir, instanceId), 'recordings');
}

/**
 * Deletes the temporary folders of processes that are not alive (a kill -9 left their
 * half-written files): at start, after this process registered, and after each heartbeat (a
 * process restarted at once finds its dead predecessor still within the 30 s). This process's
 * own folder and those of living processes sharing the data directory are left alone; a
 * leftover of this machine's earlier runs has another id (a fresh one per start) and goes.
 * Returns the ids whose folders it deleted.
 */
export async function sweepTemporaryFolders(deps: {
  db: Database;
  clock: Clock;
  dataDir: string;
  instanceId: string;
}): Promise<string[]> {
  const root = temporaryRoot(deps.dataDir);
  let entries: string[];
  try {
    entries = await fs.promises.readdir(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const alive = await liveInstanceIds(deps.db, deps.clock.now());
  alive.add(deps.instanceId);
  const removed: string[] = [];
  for (const entry of entries) {
    if (alive.has(entry)) continue;
    await fs.promises.rm(path.join(root, entry), { recursive: true, force: true });
    removed.push(entry);
  }
  return removed;
}
