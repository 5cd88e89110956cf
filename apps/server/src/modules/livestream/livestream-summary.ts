/**
 * A livestream as the customer's pages show it (LivestreamSummary): its embed code, settings and
 * schedule, the next and latest recordings, recent failures, views per day for two weeks, and
 * when the 10-day rule would switch it off. Built for many livestreams in two queries.
 */
import type { LivestreamSummary } from '@farmcam/contract';
import { rtspPathByQuality, unusedLivestreamDays } from '@farmcam/contract';
import { dayMs, isoDay } from '../../lib/business-calendar.ts';
import type { LivestreamServiceDependencies } from './livestream-access.ts';
import {
  livestreamRepository as repository,
  type ClipStatsRow,
  type LivestreamRow,
} from './livestream.repository.ts';
import { buildEmbedCode, embedPageUrl } from './embed.ts';
import {
  formatSchedule,
  nextRecordingAfter,
  slotKeyAt,
  toSchedule,
  ukWallClock,
} from './schedule.ts';

type SummaryDependencies = Pick<LivestreamServiceDependencies, 'db' | 'clock' | 'publicUrl'>;

const viewsDays = 14;
const failureWindowDays = 7;

export const qualityOfPath = (rtspPath: string): 'SD' | 'HD' =>
  rtspPath === rtspPathByQuality.HD ? 'HD' : 'SD';

function summarize(
  publicUrl: string,
  row: LivestreamRow,
  stats: ClipStatsRow | undefined,
  views: Map<string, number>,
  now: Date,
): LivestreamSummary {
  const schedule = toSchedule(row.scheduleHours, row.scheduleDays);
  const graceStart =
    row.lastSeenOnSiteAt && row.activatedAt && row.lastSeenOnSiteAt > row.activatedAt
      ? row.lastSeenOnSiteAt
      : row.activatedAt;
  const today = ukWallClock(now).date;
  const viewsByDay = Array.from({ length: viewsDays }, (_, index) => {
    const day = isoDay(
      new Date(Date.parse(`${today}T12:00:00Z`) - (viewsDays - 1 - index) * dayMs),
    );
    return { day, views: views.get(day) ?? 0 };
  });
  const toIso = (value: Date | string | null | undefined) =>
    value ? new Date(value).toISOString() : null;
  return {
    publicId: row.publicId,
    embedCode: buildEmbedCode(publicUrl, row.publicId),
    embedUrl: embedPageUrl(publicUrl, row.publicId),
    quality: qualityOfPath(row.rtspPath),
    durationSeconds: row.durationSeconds,
    includeAudio: row.includeAudio,
    scheduleHours: schedule.hours,
    scheduleDays: schedule.days,
    schedule: formatSchedule(schedule),
    isActive: row.isActive,
    disabledReason: row.disabledReason,
    isConfigured: row.configuredAt !== null,
    latestClipAt: toIso(stats?.latest_clip_at),
    nextRecordingAt: row.isActive
      ? toIso(nextRecordingAfter(schedule, now, stats?.has_current_slot ?? false))
      : null,
    recordingFailures: Number(stats?.failures ?? 0),
    lastFailure:
      stats?.last_failure_at && stats.last_failure_error
        ? { at: toIso(stats.last_failure_at)!, error: stats.last_failure_error }
        : null,
    lastSeenOnSiteAt: toIso(row.lastSeenOnSiteAt),
    switchOffAt:
      row.isActive && graceStart
        ? new Date(graceStart.getTime() + unusedLivestreamDays * dayMs).toISOString()
        : null,
    viewsByDay,
  };
}

/** The summaries of `rows`, by livestream id. */
export async function livestreamSummaries(
  deps: SummaryDependencies,
  rows: LivestreamRow[],
): Promise<Map<string, LivestreamSummary>> {
  const { db, clock } = deps;
  const now = clock.now();
  const ids = rows.map((row) => row.id);
  const [stats, views] = await Promise.all([
    repository.clipStats(
      db,
      ids,
      new Date(now.getTime() - failureWindowDays * dayMs),
      slotKeyAt(now),
    ),
    repository.viewsByDay(db, ids, isoDay(new Date(now.getTime() - (viewsDays + 1) * dayMs))),
  ]);
  const result = new Map<string, LivestreamSummary>();
  for (const row of rows) {
    const rowViews = new Map(
      views
        .filter((view) => view.livestream_id === row.id)
        .map((view) => [view.day, Number(view.views)]),
    );
    result.set(
      row.id,
      summarize(
        deps.publicUrl,
        row,
        stats.find((stat) => stat.livestream_id === row.id),
        rowViews,
        now,
      ),
    );
  }
  return result;
}

export async function livestreamSummary(
  deps: SummaryDependencies,
  row: LivestreamRow,
): Promise<LivestreamSummary> {
  return (await livestreamSummaries(deps, [row])).get(row.id)!;
}
