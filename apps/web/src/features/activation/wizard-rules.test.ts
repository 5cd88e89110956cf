import { describe, expect, it } from 'vitest';
import { hasValidLuhnDigit, isValidEmail } from '@farmcam/contract/rules';
import {
  isCodeComplete,
  needsLuhnWarning,
  normaliseActivationCode,
  normaliseIccid,
  parseCodeType,
  parseRegion,
} from './wizard-rules.ts';

describe('the 4-letter code field (docs/requirements.md#input-rules)', () => {
  it('keeps letters only, at most 4, upper-case', () => {
    expect(normaliseActivationCode('kq')).toBe('KQ');
    expect(normaliseActivationCode('k1q-t x')).toBe('KQTX');
    expect(normaliseActivationCode('kqtxa')).toBe('KQTX');
    expect(normaliseActivationCode('1234')).toBe('');
  });

  it('enables Next at exactly 4 letters', () => {
    expect(isCodeComplete('4-digits', 'KQT')).toBe(false);
    expect(isCodeComplete('4-digits', 'KQTX')).toBe(true);
  });
});

describe('the 20-digit ICCID field (docs/requirements.md#input-rules)', () => {
  it('keeps digits only, at most 20', () => {
    expect(normaliseIccid('8944 1100-0000 0009 017')).toBe('8944110000000009017');
    expect(normaliseIccid('894411000000000901712345')).toBe('89441100000000090171');
    expect(normaliseIccid('abc')).toBe('');
  });

  it('enables Next at 19 or 20 digits', () => {
    expect(isCodeComplete('20-digits', '894411000000000901')).toBe(false);
    expect(isCodeComplete('20-digits', '8944110000000009017')).toBe(true);
    expect(isCodeComplete('20-digits', '89441100000000090171')).toBe(true);
  });

  it('checks the Luhn digit, and warns (not blocks) only on a complete number that fails it', () => {
    expect(hasValidLuhnDigit('8944110000000009017')).toBe(true);
    expect(hasValidLuhnDigit('8944110000000009018')).toBe(false);
    expect(hasValidLuhnDigit('79927398713')).toBe(true);
    expect(hasValidLuhnDigit('')).toBe(false);
    expect(needsLuhnWarning('20-digits', '8944110000000009018')).toBe(true);
    expect(needsLuhnWarning('20-digits', '8944110000000009017')).toBe(false);
    expect(needsLuhnWarning('20-digits', '894411000000000901')).toBe(false);
    expect(needsLuhnWarning('4-digits', 'KQTX')).toBe(false);
  });
});

describe('the wizard e-mail (docs/requirements.md#input-rules)', () => {
  it('needs text, @, text, a dot, text', () => {
    for (const email of ['a@b.co', 'farmer.jones@example.co.uk', ' padded@example.com ']) {
      expect(isValidEmail(email), email).toBe(true);
    }
    for (const email of [
      '',
      'farmer',
      'farmer@',
      'farmer@example',
      '@example.com',
      'a b@c.d',
      'a@b.',
    ]) {
      expect(isValidEmail(email), email).toBe(false);
    }
  });
});

describe('query values', () => {
  it('accepts the two code types and the two regions, defaulting to uk', () => {
    expect(parseCodeType('4-digits')).toBe('4-digits');
    expect(parseCodeType('20-digits')).toBe('20-digits');
    expect(parseCodeType('6-digits')).toBeNull();
    expect(parseCodeType(null)).toBeNull();
    expect(parseRegion('ie')).toBe('ie');
    expect(parseRegion('uk')).toBe('uk');
    expect(parseRegion('fr')).toBe('uk');
    expect(parseRegion(null)).toBe('uk');
  });
});
