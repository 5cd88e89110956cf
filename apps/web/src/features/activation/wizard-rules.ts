/**
 * The wizard's input rules (docs/requirements.md#input-rules), in the browser: what a field accepts as it is typed, when
 * Next is enabled, and the ICCID check digit. The server applies the same rules again.
 */
import type { ActivationCodeType } from '@farmcam/contract';
import {
  activationCodeRule,
  hasValidLuhnDigit,
  iccidLengths,
  isActivationCode,
} from '@farmcam/contract/rules';

/** 4-digit code field: letters only, at most 4, upper-case. */
export function normaliseActivationCode(input: string): string {
  return input
    .replace(/[^A-Za-z]/g, '')
    .slice(0, activationCodeRule.length)
    .toUpperCase();
}

/** 20-digit ICCID field: digits only, at most 20. */
export function normaliseIccid(input: string): string {
  return input.replace(/\D/g, '').slice(0, iccidLengths.max);
}

export function normaliseCode(codeType: ActivationCodeType, input: string): string {
  return codeType === '4-digits' ? normaliseActivationCode(input) : normaliseIccid(input);
}

/** Next is enabled at exactly 4 letters, or at 19 or 20 digits. */
export function isCodeComplete(codeType: ActivationCodeType, code: string): boolean {
  return codeType === '4-digits'
    ? activationCodeRule.pattern.test(code) && code === code.toUpperCase()
    : /^\d+$/.test(code) && code.length >= iccidLengths.min && code.length <= iccidLengths.max;
}

/**
 * A complete ICCID whose last digit fails the Luhn check is probably mistyped, but some SIMs
 * carry no check digit: the wizard warns and lets the visitor go on.
 */
export function needsLuhnWarning(codeType: ActivationCodeType, code: string): boolean {
  return codeType === '20-digits' && isCodeComplete(codeType, code) && !hasValidLuhnDigit(code);
}

export function parseCodeType(value: string | null): ActivationCodeType | null {
  return value === '4-digits' || value === '20-digits' ? value : null;
}

/**
 * A link with a code but no code_type (e.g. `/activate?code=KQTX`): the code's shape says which it
 * is, 4 letters or 19-20 digits (decision 054). Anything else stays unknown and is dropped.
 */
export function inferCodeType(code: string | null): ActivationCodeType | null {
  const trimmed = (code ?? '').trim();
  if (isActivationCode(trimmed)) return '4-digits';
  const digits = trimmed.replace(/[\s-]/g, '');
  if (
    /^\d+$/.test(digits) &&
    digits.length >= iccidLengths.min &&
    digits.length <= iccidLengths.max
  ) {
    return '20-digits';
  }
  return null;
}

export function parseRegion(value: string | null): 'uk' | 'ie' {
  return value === 'ie' ? 'ie' : 'uk';
}
