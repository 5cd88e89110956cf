/**
 * The API answers a page's early-start script asked for before the app arrived (app/early-start.ts,
 * decision 118). The API client takes each one once, for the same GET with the same session token,
 * within a short time of its start; anything else, or a second ask, goes to the network as usual.
 */

/** Where the early script leaves what it started, on `window`. */
export const earlyAnswersGlobal = '__farmcamEarly';

/** An answer older than this is not taken: the app asks again for a fresh one. */
export const earlyAnswerFreshMs = 20_000;

export interface EarlyAnswer {
  status: number;
  text: string;
}

interface EarlyAnswers {
  token: string;
  at: number;
  answers: Record<string, Promise<EarlyAnswer> | undefined>;
}

function started(): EarlyAnswers | undefined {
  return (window as unknown as Record<string, EarlyAnswers | undefined>)[earlyAnswersGlobal];
}

/** The early answer for this GET path and token, once; undefined if there is none to take. */
export function takeEarlyAnswer(
  path: string,
  token: string | null,
  now = Date.now(),
): Promise<EarlyAnswer> | undefined {
  const early = typeof window === 'undefined' ? undefined : started();
  if (!early || token === null || early.token !== token) return undefined;
  const answer = early.answers[path];
  if (!answer) return undefined;
  delete early.answers[path];
  return now - early.at <= earlyAnswerFreshMs ? answer : undefined;
}
