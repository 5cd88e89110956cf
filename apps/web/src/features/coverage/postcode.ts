/**
 * docs/requirements.md#input-rules: the postcode box upper-cases what is typed and drops everything but letters and
 * digits. The server applies the same rule and owns the UK-format check (its 400 explains a bad
 * postcode), so the two cannot disagree about what is valid.
 */
export function normalisePostcode(input: string): string {
  return input.toUpperCase().replace(/[^A-Z0-9]/g, '');
}

/** The usual written form, e.g. EX36 3LH: the last three characters after a space. */
export function formatPostcode(normalised: string): string {
  return normalised.length > 3 ? `${normalised.slice(0, -3)} ${normalised.slice(-3)}` : normalised;
}
