/**
 * SQL for public livestream links (docs/decisions/096): the links, their views per subject (a
 * link's id, or `stream:<livestream id>` for the livestream's own code), day and site, and the
 * viewer-days that count each viewer once per subject and day.
 */
import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { livestreamLinks, livestreamViewerDays } from '../../db/schema.ts';
import { otherSitesHost } from './livestream.repository.ts';

export type LivestreamLinkRow = typeof livestreamLinks.$inferSelect;

export const ownCodeSubject = (livestreamId: string) => `stream:${livestreamId}`;

export interface SubjectSiteViewsRow {
  subject: string;
  site_host: string;
  views: number;
  refused: number;
}

export const publicLinksRepository = {
  async list(executor: Executor, livestreamId: string): Promise<LivestreamLinkRow[]> {
    return executor
      .select()
      .from(livestreamLinks)
      .where(eq(livestreamLinks.livestreamId, livestreamId))
      .orderBy(desc(livestreamLinks.createdAt), desc(livestreamLinks.id));
  },

  async find(
    executor: Executor,
    livestreamId: string,
    linkId: string,
  ): Promise<LivestreamLinkRow | undefined> {
    const [row] = await executor
      .select()
      .from(livestreamLinks)
      .where(and(eq(livestreamLinks.id, linkId), eq(livestreamLinks.livestreamId, livestreamId)));
    return row;
  },

  async findByToken(executor: Executor, token: string): Promise<LivestreamLinkRow | undefined> {
    const [row] = await executor
      .select()
      .from(livestreamLinks)
      .where(eq(livestreamLinks.token, token));
    return row;
  },

  async insert(
    executor: Executor,
    values: typeof livestreamLinks.$inferInsert,
  ): Promise<LivestreamLinkRow> {
    const [row] = await executor.insert(livestreamLinks).values(values).returning();
    return row!;
  },

  /** Revokes a link unless it already was; the revoked row, or undefined if it already was. */
  async revoke(
    executor: Executor,
    linkId: string,
    at: Date,
  ): Promise<LivestreamLinkRow | undefined> {
    const [row] = await executor
      .update(livestreamLinks)
      .set({ revokedAt: at })
      .where(and(eq(livestreamLinks.id, linkId), isNull(livestreamLinks.revokedAt)))
      .returning();
    return row;
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
  async count(
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

  /** Views and refusals per subject and site of a livestream since `fromDay` (a UK date). */
  async viewsBySite(
    executor: Executor,
    livestreamId: string,
    fromDay: string,
  ): Promise<SubjectSiteViewsRow[]> {
    return queryRows<SubjectSiteViewsRow>(
      executor,
      sql`select subject, site_host, sum(views)::int as views, sum(refused)::int as refused
          from livestream_link_views
          where livestream_id = ${livestreamId} and day >= ${fromDay}
          group by subject, site_host
          order by sum(views) desc, site_host`,
    );
  },
};
