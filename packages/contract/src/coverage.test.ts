import { describe, expect, it } from 'vitest';
import { formatPostcode, isUkPostcode, normalisePostcode } from './coverage.ts';

describe('postcodes', () => {
  it('normalises to upper case with only letters and digits (docs/requirements.md#input-rules)', () => {
    expect(normalisePostcode('ex36 3lh')).toBe('EX363LH');
    expect(normalisePostcode(' SW1A-1AA ')).toBe('SW1A1AA');
    expect(normalisePostcode('b33.8th')).toBe('B338TH');
    expect(normalisePostcode('  -  ')).toBe('');
  });

  it.each([
    'EX363LH',
    'SW1A1AA',
    'W1A1AA',
    'M11AE',
    'B338TH',
    'CR26XH',
    'DN551PT',
    'EC1A1BB',
    'BT921EB',
    'GIR0AA',
  ])('accepts %s', (postcode) => expect(isUkPostcode(postcode)).toBe(true));

  it.each([
    ['', 'empty'],
    ['EX36', 'outward code only'],
    ['EX363L', 'inward code too short'],
    ['EX363LHX', 'too long'],
    ['12345', 'digits only'],
    ['QX363LH', 'Q never starts a postcode'],
    ['EX363CI', 'C and I never end one'],
    ['EX36LHH', 'the inward code starts with a digit'],
    ['ex363lh', 'not normalised'],
  ])('refuses %s (%s)', (postcode) => expect(isUkPostcode(postcode)).toBe(false));

  it('writes the inward code after a space', () => {
    expect(formatPostcode('EX363LH')).toBe('EX36 3LH');
    expect(formatPostcode('M11AE')).toBe('M1 1AE');
    expect(formatPostcode('AB')).toBe('AB');
  });
});
