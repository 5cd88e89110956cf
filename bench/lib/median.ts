/** The middle of the measured values (the mean of the two middle ones for an even count); null if none was measured. */
export function median(values: readonly (number | null)[]): number | null {
  const numbers = values.filter((value): value is number => value !== null).sort((a, b) => a - b);
  if (numbers.length === 0) return null;
  const middle = Math.floor(numbers.length / 2);
  return numbers.length % 2
    ? (numbers[middle] ?? null)
    : ((numbers[middle - 1] ?? 0) + (numbers[middle] ?? 0)) / 2;
}
