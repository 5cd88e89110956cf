/**
 * UK mobile numbers as people write them, in E.164 (decision 124): `07700 900123`,
 * `+44 7700 900123`, `0044 7700 900123` and `(07700) 900-123` all become `+447700900123`.
 */
export type PhoneParse = { isValid: true; e164: string } | { isValid: false; message: string };

export function parseUkMobile(input: string): PhoneParse {
  const compact = input.trim().replace(/[\s().-]/g, '');
  if (compact === '') return { isValid: false, message: 'Please enter your mobile number.' };
  let national: string | undefined;
  if (/^07\d{9}$/.test(compact)) national = compact.slice(1);
  else if (/^\+447\d{9}$/.test(compact)) national = compact.slice(3);
  else if (/^00447\d{9}$/.test(compact)) national = compact.slice(4);
  else if (/^447\d{9}$/.test(compact)) national = compact.slice(2);
  if (national) return { isValid: true, e164: `+44${national}` };
  if (/^(\+|00)(?!44)\d/.test(compact)) {
    return {
      isValid: false,
      message:
        'We can send text messages to UK mobile numbers only. Please enter a UK mobile number starting 07.',
    };
  }
  return {
    isValid: false,
    message:
      'That does not look like a UK mobile number. Please enter it as 07 followed by nine digits, for example 07700 900123.',
  };
}

/** "+447700900123" → "07700 900123", as the farmer wrote it. */
export const displayUkMobile = (e164: string): string => {
  const national = `0${e164.slice(3)}`;
  return `${national.slice(0, 5)} ${national.slice(5)}`;
};
