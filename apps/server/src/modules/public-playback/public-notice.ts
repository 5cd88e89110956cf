/**
 * Why a public livestream shows no video, in a sentence a viewer understands (decision 120): the
 * state, the sentence and its inputs (the farm's camera name, when the next clip is due, when a
 * pause ends) and when the player should ask again. The server decides all of it; the embed page
 * shows the sentence and follows the retry advice. One place for every poster's words.
 *
 * What a public viewer may know: the camera's name (the farm shows it on its website or shared the
 * link), that it is switched off, paused or resting until a day, and its schedule's next clip. Never
 * why in billing terms (unpaid, overdue, data allowance), the SIM or the farm's address. A page that
 * has not proved it may play (another website, no page-load token) learns nothing about the camera.
 */
import { formatUkTime, formatUkWeekdayDay } from '@farmcam/contract/rules';
import { businessDay } from '../../lib/business-calendar.ts';

export const publicStates = [
  /** Configured, but no clip recorded yet: the first is due at the schedule's next slot. */
  'no-clip',
  /** The farm switched the livestream's schedule off (or it was switched off unseen, 10 days). */
  'off',
  /** The camera's plan is paused (until a day, or until the farm resumes it). */
  'paused',
  /** The camera's data is paused at its allowance until the month turns (decision 095). */
  'data-paused',
  /** The camera's SIM was switched off for good, or its plan ended. */
  'terminated',
  /** Any other reason the camera cannot stream now (the viewer is not told why). */
  'unavailable',
  /** A public link past its last day. */
  'expired',
  /** A public link the farm switched off. */
  'revoked',
  /** An embed code on a website not on its list, or a request that proves no page load. */
  'not-allowed',
  /** The page's proof lapsed: loading the page again proves it anew (decision 100). */
  'reload',
  /** No livestream has this address. */
  'missing',
] as const;
export type PublicState = (typeof publicStates)[number];

/** States that will not change by waiting: the player stops asking (the page says what to do). */
export const finalPublicStates: readonly PublicState[] = [
  'terminated',
  'expired',
  'revoked',
  'not-allowed',
  'reload',
  'missing',
];

export interface PublicNoticeFacts {
  /** The farm's name for the camera; null when the viewer may not learn it, or it has none. */
  cameraName: string | null;
  /** The schedule's next slot (no-clip), or null. */
  nextClipAt?: Date | null;
  /** The UK day a pause ends (YYYY-MM-DD), or null when the farm resumes it by hand. */
  resumesOn?: string | null;
}

export interface PublicNotice {
  state: PublicState;
  sentence: string;
  cameraName: string | null;
  nextClipAt: Date | null;
  /** Seconds until the player should ask again; null for a final state. */
  retryAfterSeconds: number | null;
}

/** "12:00 today", "07:00 tomorrow" or "12:00 on Mon 1 Dec", UK time (the schedule's zone). */
export function whenInWords(at: Date, now: Date): string {
  const day = businessDay(at);
  const time = formatUkTime(at);
  if (day === businessDay(now)) return `${time} today`;
  if (day === businessDay(new Date(now.getTime() + 24 * 3_600_000))) return `${time} tomorrow`;
  return `${time} on ${formatUkWeekdayDay(at)}`;
}

/** A UK day (YYYY-MM-DD) as "Mon 1 Dec" (its noon in UTC is on that day in the UK too). */
const dayInWords = (day: string) => formatUkWeekdayDay(new Date(`${day}T12:00:00Z`));

/** How often a player asks again while a camera is off, paused or unavailable. */
export const waitingRetrySeconds = 300;
/**
 * While waiting for a first clip the player asks every minute, as while playing: the clip may come
 * any time (the slot's catch-up, a recording started by hand), and a link revoked meanwhile must
 * stop the page within a minute (decision 101).
 */
export const noClipRetrySeconds = 60;

export function publicNotice(
  state: PublicState,
  facts: PublicNoticeFacts,
  now: Date,
): PublicNotice {
  const name = facts.cameraName?.trim() || null;
  const camera = name ?? 'This camera';
  const nextClipAt = state === 'no-clip' ? (facts.nextClipAt ?? null) : null;
  const retryAfterSeconds = finalPublicStates.includes(state)
    ? null
    : state === 'no-clip'
      ? noClipRetrySeconds
      : waitingRetrySeconds;
  const resumes = facts.resumesOn ? dayInWords(facts.resumesOn) : null;
  const sentence = {
    'no-clip': nextClipAt
      ? `${camera} has no clip yet. The first one is due at ${whenInWords(nextClipAt, now)} (UK time) and plays here by itself.`
      : `${camera} has no clip yet. The first one plays here by itself once it is recorded.`,
    off: `The farm has switched off ${name ? `${name}’s` : 'this'} livestream for now. It plays here again by itself when it is switched back on.`,
    paused: resumes
      ? `The farm has paused ${name ?? 'this camera'} until ${resumes}. Clips play here again by themselves after that.`
      : `The farm has paused ${name ?? 'this camera'}. Clips play here again by themselves when it is back.`,
    'data-paused': resumes
      ? `${camera} is resting until ${resumes}. Clips play here again by themselves after that.`
      : `${camera} is resting for now. Clips play here again by themselves when it is back.`,
    terminated: `${camera} has been switched off for good, so this livestream has ended.`,
    unavailable: `${name ? `${name}’s` : 'This'} livestream is not available right now. This page tries again by itself.`,
    expired: name
      ? `This link to ${name} has expired. Ask the farm for a new one.`
      : 'This link has expired.',
    revoked: name
      ? `This link to ${name} has been switched off. Ask the farm for a new one.`
      : 'This link has been switched off.',
    'not-allowed': 'This livestream is not allowed on this site.',
    reload: 'Reload the page to keep watching this livestream.',
    missing: 'There is no livestream at this address. Check the link or code you were given.',
  }[state];
  return { state, sentence, cameraName: name, nextClipAt, retryAfterSeconds };
}

/**
 * The answer's headers for a notice (livestream-url's refusals): the state, its inputs and when to
 * ask again. The camera's name is percent-encoded UTF-8 (a header is ASCII).
 */
export function publicNoticeHeaders(notice: PublicNotice): Record<string, string> {
  const headers: Record<string, string> = { 'x-livestream-state': notice.state };
  if (notice.cameraName) headers['x-camera-name'] = encodeURIComponent(notice.cameraName);
  if (notice.nextClipAt) headers['x-next-clip-at'] = notice.nextClipAt.toISOString();
  if (notice.retryAfterSeconds !== null) headers['retry-after'] = String(notice.retryAfterSeconds);
  return headers;
}
