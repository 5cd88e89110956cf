/**
 * Values and rules both the server and the browser apply, without zod, so the web can import them
 * (`@farmcam/contract/rules`) without putting the schemas in its bundle (docs/decisions/081).
 * The schemas of this package build on these; nothing here may import zod.
 */

/** A staff password (docs/decisions/062): length is what makes a password hard to guess. */
export const staffPasswordRule = {
  minLength: 12,
  maxLength: 200,
  tooShortMessage: 'Please choose a password of at least 12 characters',
} as const;

/** docs/requirements.md#input-rules: text, @, text, a dot, text. Deliberately loose: the mail itself proves the address. */
export const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Longest e-mail address accepted (the SMTP limit of a path). */
export const maxEmailLength = 254;

/** Whether a typed e-mail address has the shape the server accepts (surrounding spaces ignored). */
export const isValidEmail = (email: string): boolean => emailPattern.test(email.trim());

/** A SIM number (ICCID) has 19 or 20 digits (docs/requirements.md#input-rules). */
export const iccidLengths = { min: 19, max: 20 } as const;

/**
 * An activation code (docs/requirements.md#input-rules): exactly four letters, any case as typed,
 * kept upper-case. The contract checks it and the wizard's field and links are shaped by it
 * (decision 170).
 */
export const activationCodeRule = {
  length: 4,
  pattern: /^[A-Za-z]{4}$/,
  message: 'An activation code is 4 letters',
} as const;

/** Whether a typed or linked code has the activation code's shape (surrounding spaces ignored). */
export const isActivationCode = (code: string): boolean =>
  activationCodeRule.pattern.test(code.trim());

/** Longest camera name, in characters. */
export const maxNicknameLength = 40;

/** A camera name as it is kept: surrounding spaces dropped, inner runs of spaces made one. */
export const normaliseNickname = (value: string): string => value.trim().replace(/\s+/g, ' ');

/**
 * How many characters a camera name has as the server counts them (after normaliseNickname, by
 * Unicode code point, so "é" or most emoji count once): the rename form's live count and the
 * server's limit are one number.
 */
export const nicknameLength = (value: string): number => [...normaliseNickname(value)].length;

/**
 * How every screen, e-mail and document names a camera (decision 170): its nickname, or
 * "Camera 1071" from the SIM number's last four digits. The plans list sends it as `displayName`.
 */
export function cameraNameOf(nickname: string | null | undefined, iccid: string): string {
  return nickname?.trim() || `Camera ${iccid.slice(-4)}`;
}

/** "SIM …1071": a SIM number shortened to what tells a farmer's cameras apart. */
export const shortSimOf = (iccid: string): string => `SIM …${iccid.slice(-4)}`;

/** "Fuel tank (SIM …1071)": a camera named with its SIM, for titles of pages about it. */
export const cameraLabelOf = (nickname: string | null | undefined, iccid: string): string =>
  `${cameraNameOf(nickname, iccid)} (${shortSimOf(iccid)})`;

/**
 * The plans' tiers, cheapest first (docs/requirements.md: Light, Standard and Heavy). A camera's
 * tier is its product's, as the catalogue stores it; the plans list sends it (decision 170).
 */
export const planTiers = ['light', 'standard', 'heavy'] as const;
export type PlanTier = (typeof planTiers)[number];

/**
 * Whether a coverage level (0 to 4, or none) means a camera will have signal there
 * (docs/requirements.md#states, decision 030): 3 (limited) and 4 (strong) are covered; 0 and no
 * prediction are not, and Ofcom's retired levels 1 and 2 sit below "limited", so they are not
 * either. The server's multi-network result and booster advice and the browser's chips both ask
 * this (decision 170).
 */
export function isCoveredLevel(level: number | null | undefined): boolean {
  return level !== null && level !== undefined && level >= 3;
}

/**
 * Pauses and restarts start on a 1st (decision 021): asked for before this day of the month (UK
 * time) they start next month, from it on the month after, since next month's billing is under
 * way. The server's pause window and every sentence that says "before the 25th" use it.
 */
export const pauseCutOffDay = 25;

/** A day of the month as written in a sentence: "1st", "2nd", "3rd", "25th". */
export function dayOfMonthWords(day: number): string {
  const tens = day % 100;
  if (tens >= 11 && tens <= 13) return `${day}th`;
  const suffix = ['th', 'st', 'nd', 'rd'][day % 10] ?? 'th';
  return `${day}${suffix}`;
}

/** "before the 25th": the pause cut-off as the screens and the pause options say it. */
export const beforePauseCutOff = `before the ${dayOfMonthWords(pauseCutOffDay)}`;

/** Luhn check over a digit string: true when the last digit is a valid check digit. */
export function hasValidLuhnDigit(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  let isDoubled = false;
  for (let index = digits.length - 1; index >= 0; index -= 1) {
    let digit = digits.charCodeAt(index) - 48;
    if (isDoubled) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    isDoubled = !isDoubled;
  }
  return sum % 10 === 0;
}

/** Appends the Luhn check digit to a digit string. */
export function withLuhnDigit(body: string): string {
  for (let digit = 0; digit <= 9; digit += 1) {
    if (hasValidLuhnDigit(`${body}${digit}`)) return `${body}${digit}`;
  }
  throw new Error(`Not a digit string: ${body}`);
}

/** One day in milliseconds. */
export const dayMs = 86_400_000;

/** YYYY-MM-DD of an instant, as a UTC calendar day (how usage days and invoice dates are kept). */
export const isoDay = (instant: Date): string => instant.toISOString().slice(0, 10);

/**
 * "This month" for data (decision 170): the UTC calendar month, as the SIM platform reports usage
 * and daily usage is kept, so the dashboard's figures, the alerts, the data caps and the camera's
 * chart count the same days wherever the browser is. (Pauses and plans count UK days: `ukDayOf`.)
 */
export const usageMonthOf = (instant: Date): string => instant.toISOString().slice(0, 7);

/** Midnight UTC starting the usage month of `instant`. */
export const usageMonthStart = (instant: Date): Date =>
  new Date(Date.UTC(instant.getUTCFullYear(), instant.getUTCMonth(), 1));

/** Midnight UTC starting the next usage month (the next plan reset). */
export const nextUsageMonthStart = (instant: Date): Date =>
  new Date(Date.UTC(instant.getUTCFullYear(), instant.getUTCMonth() + 1, 1));

/** The first and last day (YYYY-MM-DD) of the usage month of `instant`. */
export function usageMonthDays(instant: Date): { firstDay: string; lastDay: string } {
  return {
    firstDay: isoDay(usageMonthStart(instant)),
    lastDay: isoDay(new Date(nextUsageMonthStart(instant).getTime() - dayMs)),
  };
}

// One formatter per currency: making a new one per call was 2-3% of a billing cycle's CPU time.
const moneyFormats = new Map<string, Intl.NumberFormat>();

/** docs/requirements.md#limits: amounts are minor units shown as en-GB currency (amount / 100). */
export function formatMoney(minorUnits: number, currency: string): string {
  const code = currency.toUpperCase();
  let format = moneyFormats.get(code);
  if (!format) {
    format = new Intl.NumberFormat('en-GB', { style: 'currency', currency: code });
    moneyFormats.set(code, format);
  }
  return format.format(minorUnits / 100);
}

const dayFormat = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  timeZone: 'UTC',
});

/** A YYYY-MM-DD day, an ISO time or an instant as "1 April 2026". */
export function formatDay(value: string | Date): string {
  if (value instanceof Date) return dayFormat.format(value);
  return dayFormat.format(new Date(value.length === 10 ? `${value}T00:00:00Z` : value));
}

/** Text made safe inside HTML, in element content and in quoted attributes alike. */
export const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/**
 * A camera's alert settings (decision 094): hours of silence before an e-mail (the choices the
 * form offers; any whole hour in the range is accepted), the share of the plan's data e-mailed
 * before 100 %, hours without a clip before the livestream alert.
 */
export const cameraAlertLimits = {
  silenceHours: { min: 1, max: 72, choices: [1, 2, 3, 6, 12, 24, 48] as const, default: 6 },
  dataAlertPercent: { min: 50, max: 99 },
  noClipHours: { min: 1, max: 72 },
} as const;

/** An outage's length as a farmer says it: "8 hours 12 minutes", "45 minutes", "2 days 3 hours". */
export function formatOutage(milliseconds: number): string {
  const minutes = Math.max(0, Math.floor(milliseconds / 60_000));
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  const part = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;
  if (days > 0) return [part(days, 'day'), hours > 0 ? part(hours, 'hour') : ''].join(' ').trim();
  if (hours > 0)
    return [part(hours, 'hour'), rest > 0 ? part(rest, 'minute') : ''].join(' ').trim();
  return part(rest, 'minute');
}

// UK days, clocks and dates: one module names the time zone (decision 170).
export * from './uk-time.ts';

/** Public livestream links (decision 096): bounds a farmer meets on the form and the server says. */
export const livestreamLinkLimits = {
  labelMaxLength: 80,
  maxDays: 365,
  maxDomains: 20,
  /** Days of views shown per link and per site. */
  viewsDays: 30,
} as const;

/**
 * Where the sign-in form posts without JavaScript, or before the app has started (decision 116):
 * the server answers a page saying the link was sent. The app sends the same form through the API.
 */
export const signInFormPath = '/login-link';

/**
 * Paths the server answers itself, never the SPA: the service worker leaves them to the network
 * and the SPA fallback does not answer them (decision 117).
 */
export const serverOnlyPathPrefixes = [
  '/api/',
  '/dev/',
  '/billing-engine/',
  '/embed/',
  '/media/',
  signInFormPath,
] as const;

/**
 * Finding a camera among many on the dashboard (decision 140). The server says which of these
 * each camera is in (its `findStates`) and how urgent it is (`stateOrder`); the web offers them
 * as filters with these words and keeps the choice in the address (?show=, ?sort=, ?q=).
 */
export const cameraFindStates = [
  'needs-attention',
  'overdue',
  'paused',
  'no-plan',
  'livestreaming',
  'silent',
] as const;
export type CameraFindState = (typeof cameraFindStates)[number];

/** Each filter as the dashboard offers it. */
export const cameraFindStateLabels: Record<CameraFindState, string> = {
  'needs-attention': 'Needs attention',
  overdue: 'Overdue bill',
  paused: 'Paused',
  'no-plan': 'No plan',
  livestreaming: 'Livestreaming',
  silent: 'Silent',
};

/** How the dashboard can order its cameras; the first is the default (needing attention first). */
export const cameraSortOrders = ['state', 'name', 'data'] as const;
export type CameraSortOrder = (typeof cameraSortOrders)[number];

export const cameraSortLabels: Record<CameraSortOrder, string> = {
  state: 'Needs attention first',
  name: 'Name (A to Z)',
  data: 'Data used (most first)',
};

// ── Livestreaming (docs/requirements.md#limits, decision 170) ────────────────────────────────

/** docs/requirements.md#limits: the camera's RTSP port, and its stream paths per quality. */
export const livestreamRtspPort = 554;
export const livestreamQualities = ['SD', 'HD'] as const;
export type LivestreamQuality = (typeof livestreamQualities)[number];
export const rtspPathByQuality = { SD: '/12', HD: '/11' } as const satisfies Record<
  LivestreamQuality,
  string
>;
export const rtspPaths = ['/12', '/11'] as const;
export type RtspPath = (typeof rtspPaths)[number];

/** docs/requirements.md#limits: clip lengths a schedule may use, and the preview's. */
export const livestreamDurations = [15, 30, 60] as const;
export type LivestreamDuration = (typeof livestreamDurations)[number];
export const previewDurationSeconds = 5;
/** Recordings made on request: the preview (5 s) or one of the schedule lengths. */
export const immediateDurations = [previewDurationSeconds, ...livestreamDurations] as const;

/** docs/requirements.md#data: upper-case day names, Monday first. */
export const scheduleDays = [
  'MONDAY',
  'TUESDAY',
  'WEDNESDAY',
  'THURSDAY',
  'FRIDAY',
  'SATURDAY',
  'SUNDAY',
] as const;
export type ScheduleDay = (typeof scheduleDays)[number];

/** docs/requirements.md#limits: a schedule is switched off when its code has not been seen on a website for this long. */
export const unusedLivestreamDays = 10;

/**
 * The schedule text of the configure-rtsp call, "hours=9,10,…;days=MONDAY,…": hours ascending
 * without repeats, days Monday first, either list possibly empty. The set-up writes it and the
 * server writes its stored schedules in it (docs/decisions/041).
 */
export function formatScheduleText(hours: readonly number[], days: readonly ScheduleDay[]): string {
  const sortedHours = [...new Set(hours)].sort((a, b) => a - b);
  const sortedDays = scheduleDays.filter((day) => days.includes(day));
  return `hours=${sortedHours.join(',')};days=${sortedDays.join(',')}`;
}
