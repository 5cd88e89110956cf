import { describe, expect, it } from 'vitest';
import {
  escapeHtml,
  formatDay,
  formatMoney,
  hasValidLuhnDigit,
  isoDay,
  isValidEmail,
  withLuhnDigit,
} from './rules.ts';

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
});
