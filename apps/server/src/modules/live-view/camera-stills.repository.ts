/**
 * SQL for cameras' latest stills (decision 157): the still on record, and the cameras whose
 * newest ready clip is newer than their still.
 */
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';

export interface StillCandidate {
  sim_iccid: string;
  storage_key: string;
  /** When the clip's picture ends: its start plus its length. */
  taken_at: Date | string;
}

export const cameraStillsRepository = {
  /** Cameras whose newest ready clip is newer than their still (or that have none), oldest first. */
  async listClipsNewerThanStills(executor: Executor, limit: number): Promise<StillCandidate[]> {
    return queryRows<StillCandidate>(
      executor,
      sql`
      select newest.sim_iccid, newest.storage_key, newest.taken_at
      from (
        select distinct on (l.sim_iccid) l.sim_iccid, c.storage_key,
               c.recorded_at + make_interval(secs => c.duration_seconds) as taken_at
        from clips c
        join livestreams l on l.id = c.livestream_id
        where c.status = 'ready' and c.storage_key is not null
        order by l.sim_iccid, c.recorded_at desc
      ) newest
      left join camera_stills still on still.sim_iccid = newest.sim_iccid
      where still.sim_iccid is null or still.taken_at < newest.taken_at
      order by newest.taken_at
      limit ${limit}`,
    );
  },

  /**
   * Keeps this still if it is newer than the camera's; returns the key it replaced (to delete),
   * or the new key itself when an even newer still was there already.
   */
  async saveIfNewer(
    executor: Executor,
    input: {
      iccid: string;
      storageKey: string;
      takenAt: Date;
      source: 'clip' | 'live' | 'timelapse';
    },
  ): Promise<{ unusedKey: string | null }> {
    const [previous] = await queryRows<{ storage_key: string; taken_at: Date | string }>(
      executor,
      sql`select storage_key, taken_at from camera_stills where sim_iccid = ${input.iccid} for update`,
    );
    if (previous && new Date(previous.taken_at) >= input.takenAt) {
      return { unusedKey: input.storageKey };
    }
    await executor.execute(sql`
      insert into camera_stills (sim_iccid, storage_key, taken_at, source, updated_at)
      values (${input.iccid}, ${input.storageKey}, ${input.takenAt.toISOString()}, ${input.source}, now())
      on conflict (sim_iccid) do update
        set storage_key = excluded.storage_key, taken_at = excluded.taken_at,
            source = excluded.source, updated_at = now()`);
    return { unusedKey: previous?.storage_key ?? null };
  },
};
