import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  // The domain model is the database package's (decision 171); its migrations stay beside the
  // server's db/client.ts, which applies them.
  schema: '../../packages/db/src/schema.ts',
  out: './src/db/migrations',
});
