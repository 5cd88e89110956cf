/**
 * PostgreSQL error codes, looked up where drizzle puts them: drizzle wraps a driver's error in a
 * DrizzleQueryError whose `cause` is the driver's error (node-postgres or PGlite) with the code,
 * and some paths (a transaction's commit) throw the driver's error itself. So: the error's own
 * code, else its cause's, a few levels down.
 */
export function databaseErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A unique constraint refused the write (SQLSTATE 23505): someone else inserted the key first. */
export const isUniqueViolation = (error: unknown) => databaseErrorCode(error) === '23505';
