import { seedTemplate } from './fixtures/server.ts';

/** One seeded database for the run, copied by each spec file's server (fixtures/server.ts). */
export default async function globalSetup(): Promise<() => Promise<void>> {
  return seedTemplate();
}
