import { describe, expect, it } from 'vitest';
import {
  activationCodeRule,
  beforePauseCutOff,
  cameraLabelOf,
  dayOfMonthWords,
  pauseCutOffDay,
  formatScheduleText,
  isActivationCode,
  isCoveredLevel,
  cameraNameOf,
  escapeHtml,
  formatDay,
  formatMoney,
  hasValidLuhnDigit,
  isoDay,
  isValidEmail,
  nextUsageMonthStart,
  livestreamDurations,
  livestreamRtspPort,
  previewDurationSeconds,
  rtspPathByQuality,
  scheduleDays,
  shortSimOf,
  unusedLivestreamDays,
  usageMonthDays,
  usageMonthOf,
  usageMonthStart,
  withLuhnDigit,
} from './rules.ts';
import { activationCode } from './activation.ts';
import { configureRtspBody } from './livestream.ts';

describe('the shared rules', () => {
  it('checks and appends Luhn digits', () => {
    expect(hasValidLuhnDigit('79927398713')).toBe(true);
    expect(hasValidLuhnDigit('79927398710')).toBe(false);
    expect(hasValidLuhnDigit('')).toBe(false);
    expect(withLuhnDigit('7992739871')).toBe('79927398713');
  });

  it('accepts the e-mail shapes the server accepts', () => {
    expect(isValidEmail(' farmer@example.co.uk ')).toBe(true);
    expect(isValidEmail('farmer@example')).toBe(false);
    expect(isValidEmail('far mer@example.com')).toBe(false);
  });

  it('formats money, days and HTML the same on both sides', () => {
    expect(formatMoney(1234, 'gbp')).toBe('£12.34');
    expect(formatMoney(500, 'EUR')).toBe('€5.00');
    expect(formatDay('2026-04-01')).toBe('1 April 2026');
    expect(formatDay('2026-04-01T23:30:00Z')).toBe('1 April 2026');
    expect(formatDay(new Date('2026-05-02T00:00:00Z'))).toBe('2 May 2026');
    expect(isoDay(new Date('2026-05-02T23:59:59Z'))).toBe('2026-05-02');
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe(
      '&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;',
    );
  });

  it('names a camera one way everywhere (decision 170)', () => {
    expect(cameraNameOf('Fuel tank', '8944110000000001071')).toBe('Fuel tank');
    expect(cameraNameOf('  Fuel tank ', '8944110000000001071')).toBe('Fuel tank');
    expect(cameraNameOf(null, '8944110000000001071')).toBe('Camera 1071');
    expect(cameraNameOf(undefined, '8944110000000001071')).toBe('Camera 1071');
    expect(cameraNameOf('   ', '8944110000000001071')).toBe('Camera 1071');
    expect(shortSimOf('8944110000000001071')).toBe('SIM …1071');
    expect(cameraLabelOf(null, '8944110000000001071')).toBe('Camera 1071 (SIM …1071)');
  });

  it("holds the livestream's constants the set-up sends and the server checks (decision 170)", () => {
    expect(livestreamRtspPort).toBe(554);
    expect(rtspPathByQuality).toEqual({ SD: '/12', HD: '/11' });
    expect(livestreamDurations).toEqual([15, 30, 60]);
    expect(previewDurationSeconds).toBe(5);
    expect(unusedLivestreamDays).toBe(10);
    expect(scheduleDays[0]).toBe('MONDAY');
    // The contract checks requests against the same values.
    const body = {
      camera_id: withLuhnDigit('894411000000000107'),
      rtsp_port: livestreamRtspPort,
      rtsp_path: rtspPathByQuality.SD,
      duration: livestreamDurations[0],
      include_audio: false,
      is_active: true,
      schedule: 'hours=9;days=MONDAY',
    };
    expect(configureRtspBody.safeParse(body).success).toBe(true);
    expect(configureRtspBody.safeParse({ ...body, rtsp_port: 8554 }).success).toBe(false);
    expect(configureRtspBody.safeParse({ ...body, duration: previewDurationSeconds }).success).toBe(
      false,
    );
  });

  it('writes the schedule text the server reads, sorted, empty lists allowed (decision 170)', () => {
    expect(formatScheduleText([9, 10, 11, 12, 13, 14, 15, 16, 17], scheduleDays.slice(0, 5))).toBe(
      'hours=9,10,11,12,13,14,15,16,17;days=MONDAY,TUESDAY,WEDNESDAY,THURSDAY,FRIDAY',
    );
    expect(formatScheduleText([17, 0, 9, 9], ['SUNDAY', 'MONDAY'])).toBe(
      'hours=0,9,17;days=MONDAY,SUNDAY',
    );
    expect(formatScheduleText([], [])).toBe('hours=;days=');
  });

  it('counts coverage levels 3 and 4 as covered, and nothing else (decision 170)', () => {
    expect([0, 1, 2, 3, 4, null, undefined].map(isCoveredLevel)).toEqual([
      false,
      false,
      false,
      true,
      true,
      false,
      false,
    ]);
  });

  it('says the pause cut-off the pause rules use, as a farmer writes a date (decision 170)', () => {
    expect(pauseCutOffDay).toBe(25);
    expect(beforePauseCutOff).toBe('before the 25th');
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 24, 31].map(dayOfMonthWords)).toEqual([
      '1st',
      '2nd',
      '3rd',
      '4th',
      '11th',
      '12th',
      '13th',
      '21st',
      '22nd',
      '23rd',
      '24th',
      '31st',
    ]);
  });

  it('knows an activation code by its shape, as the contract checks it (decision 170)', () => {
    expect(activationCodeRule.length).toBe(4);
    for (const code of ['KQTX', 'kqtx', ' KqTx ']) expect(isActivationCode(code)).toBe(true);
    for (const code of ['KQT', 'KQTXY', 'KQ1X', '1234', ''])
      expect(isActivationCode(code)).toBe(false);
    expect(activationCode.parse(' kqtx ')).toBe('KQTX');
    expect(activationCode.safeParse('KQ1X').error?.issues[0]?.message).toBe(
      activationCodeRule.message,
    );
  });

  it('counts this month for data as the UTC calendar month usage is kept in (decision 170)', () => {
    const ukSummerFirst = new Date('2026-03-31T23:30:00Z'); // 00:30 on 1 April in the UK
    expect(usageMonthOf(ukSummerFirst)).toBe('2026-03');
    expect(usageMonthStart(ukSummerFirst).toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(nextUsageMonthStart(ukSummerFirst).toISOString()).toBe('2026-04-01T00:00:00.000Z');
    expect(usageMonthDays(ukSummerFirst)).toEqual({
      firstDay: '2026-03-01',
      lastDay: '2026-03-31',
    });
    expect(usageMonthDays(new Date('2028-02-10T00:00:00Z')).lastDay).toBe('2028-02-29');
  });
});
