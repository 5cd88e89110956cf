/**
 * Rules both the server and the browser apply, without zod, so the web can import them
 * (`@farmcam/contract/rules`) without putting the schemas in its bundle.
 */

/** A staff password (docs/decisions/062): length is what makes a password hard to guess. */
export const staffPasswordRule = {
  minLength: 12,
  maxLength: 200,
  tooShortMessage: 'Please choose a password of at least 12 characters',
} as const;
