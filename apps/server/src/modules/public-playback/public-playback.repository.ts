/**
 * SQL of public playback (docs/decisions/163): what an anonymous player's requests read (a
 * livestream by its public id, a link by its token, the clip to play) and write (views per day
 * and site, the viewer-days that count each viewer once, when a stream was last seen on a site).
 * The livestream and its camera otherwise come through livestream/livestream.service.ts.
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { clips, livestreamLinks, livestreams, livestreamViewerDays } from '../../db/schema.ts';
import { otherSitesHost } from '../livestream/public-links.rules.ts';

type LivestreamRow = typeof livestreams.$inferSelect;
export type LivestreamLinkRow = typeof livestreamLinks.$inferSelect;
type ClipRow = typeof clips.$inferSelect;

export const publicPlaybackRepository = {
  async findLivestreamByPublicId(
    executor: Executor,
    publicId: string,
  ): Promise<LivestreamRow | undefined> {
    const [row] = await executor
      .select()
      .from(livestreams)
      .where(eq(livestreams.publicId, publicId));
    return row;
  },

  async findLinkByToken(executor: Executor, token: string): Promise<LivestreamLinkRow | undefined> {
    const [row] = await executor
      .select()
      .from(livestreamLinks)
      .where(eq(livestreamLinks.token, token));
    return row;
  },

  /**
   * The clip the embed plays: the newest ready one, preferring real recordings to the setup's
   * silent 5-second preview.
   */
  async latestPlayableClip(executor: Executor, livestreamId: string): Promise<ClipRow | undefined> {
    const [row] = await executor
      .select()
      .from(clips)
      .where(and(eq(clips.livestreamId, livestreamId), eq(clips.status, 'ready')))
      .orderBy(sql`(${clips.slot} like 'preview:%')`, desc(clips.recordedAt))
      .limit(1);
    return row;
  },

  // ── Views ──────────────────────────────────────────────────────────────────────────────

  /**
   * One view on a day from a site. A stream records at most `sitesPerDay` distinct sites a day;
   * views from further sites are counted together under `otherSitesHost`, so invented sites
   * cannot add rows without bound.
   */
  async countView(
    executor: Executor,
    values: { livestreamId: string; day: string; referrerHost: string; sitesPerDay: number },
  ): Promise<void> {
    const { livestreamId, day, referrerHost } = values;
    await executor.execute(
      sql`insert into livestream_views (livestream_id, day, referrer_host, views)
          select ${livestreamId}::uuid, ${day}::date,
            case when exists (
                select 1 from livestream_views
                where livestream_id = ${livestreamId} and day = ${day} and referrer_host = ${referrerHost}
              ) or (
                select count(*) from livestream_views
                where livestream_id = ${livestreamId} and day = ${day}
              ) < ${values.sitesPerDay}
              then ${referrerHost}::text else ${otherSitesHost}::text end,
            1
          on conflict (livestream_id, day, referrer_host) do update set views = livestream_views.views + 1`,
    );
  },

  async markSeenOnSite(executor: Executor, livestreamId: string, at: Date): Promise<void> {
    await executor
      .update(livestreams)
      // Seen again: a new 10-day grace, whose day-7 warning may go out again (decision 096).
      .set({ lastSeenOnSiteAt: at, switchOffWarnedAt: null })
      .where(eq(livestreams.id, livestreamId));
  },

  /**
   * Notes a viewer for a subject and day; true the first time (so the view counts), false after.
   * The primary key makes this safe with many processes.
   */
  async noteViewerDay(
    executor: Executor,
    values: { subject: string; day: string; viewerHash: string },
  ): Promise<boolean> {
    const rows = await executor
      .insert(livestreamViewerDays)
      .values(values)
      .onConflictDoNothing()
      .returning({ subject: livestreamViewerDays.subject });
    return rows.length > 0;
  },

  /**
   * One view (or refused play) of a subject on a day from a site; at most `sitesPerDay` distinct
   * sites per subject and day, further ones counted together as `otherSitesHost`.
   */
  async countSubjectView(
    executor: Executor,
    values: {
      subject: string;
      livestreamId: string;
      day: string;
      siteHost: string;
      column: 'views' | 'refused';
      sitesPerDay: number;
    },
  ): Promise<void> {
    const { subject, livestreamId, day, siteHost } = values;
    const views = values.column === 'views' ? 1 : 0;
    const refused = values.column === 'refused' ? 1 : 0;
    await executor.execute(
      sql`insert into livestream_link_views (subject, livestream_id, day, site_host, views, refused)
          select ${subject}, ${livestreamId}::uuid, ${day}::date,
            case when exists (
                select 1 from livestream_link_views
                where subject = ${subject} and day = ${day} and site_host = ${siteHost}
              ) or (
                select count(*) from livestream_link_views where subject = ${subject} and day = ${day}
              ) < ${values.sitesPerDay}
              then ${siteHost}::text else ${otherSitesHost}::text end,
            ${views}, ${refused}
          on conflict (subject, day, site_host) do update set
            views = livestream_link_views.views + excluded.views,
            refused = livestream_link_views.refused + excluded.refused`,
    );
  },
};
