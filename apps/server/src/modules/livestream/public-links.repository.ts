/**
 * SQL for public livestream links (docs/decisions/096): the links their owner makes and revokes,
 * and their views per subject (a link's id, or `stream:<livestream id>` for the livestream's own
 * code), day and site. Playback counts the views (public-playback/public-playback.repository.ts).
 */
import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { livestreamLinks } from '../../db/schema.ts';

export type LivestreamLinkRow = typeof livestreamLinks.$inferSelect;

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
