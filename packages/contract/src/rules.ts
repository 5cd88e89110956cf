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

const ukClockFormat = new Intl.DateTimeFormat('en-GB', {
  hour: '2-digit',
  minute: '2-digit',
  timeZone: 'Europe/London',
});

/** An instant's UK wall-clock time, "07:12". */
export const formatUkTime = (value: string | Date): string =>
  ukClockFormat.format(typeof value === 'string' ? new Date(value) : value);

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
