import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type * as schema from './schema.ts';

/**
 * The database as drizzle sees it, whichever driver opened it (PGlite or node-postgres; the
 * server's db/client.ts opens it and applies the migrations).
 */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;
/** A transaction or the database: repositories accept either. */
export type Executor = Pick<Database, 'select' | 'insert' | 'update' | 'delete' | 'execute'>;
