/**
 * The portal's database, as every package that reads or writes it shares it: the domain model
 * (`@farmcam/db/schema`, one drizzle schema whose migrations drizzle-kit writes into
 * apps/server/src/db/migrations), the handle's types and the few helpers that belong to the
 * tables themselves. Opening a database (PGlite or PostgreSQL, migrations under a lock) is the
 * server's (apps/server/src/db/client.ts). Decision 171.
 */
export type { Database, Executor } from './database.ts';
export { databaseErrorCode, isUniqueViolation } from './database-errors.ts';
export { ensureDatabaseSecret } from './database-secret.ts';
export { hashRequest } from './request-hash.ts';
