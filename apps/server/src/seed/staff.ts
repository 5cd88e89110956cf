/**
 * The demo's two staff accounts, admin@example.com (admin) and team@example.com (team), made
 * once, when demo data is first seeded in development (docs/decisions/062). Their passwords come
 * from ADMIN_PASSWORD / TEAM_PASSWORD (the browser journeys) or are generated, and are written
 * only to DATA_DIR/demo-staff-passwords.txt (mode 600): never printed, never logged, and never
 * changed by a later start. Real staff accounts come from `npm run staff -- add`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { generatePassword, hashPassword } from '../lib/tokens.ts';
import type { Database } from '../db/client.ts';
import { staff } from '../db/schema.ts';

export const demoStaffPasswordFile = (dataDir: string) =>
  path.join(dataDir, 'demo-staff-passwords.txt');

/**
 * Creates the demo staff accounts that do not exist yet and writes their passwords to the file,
 * whose path it returns; when both exist already it writes nothing.
 */
export async function seedDemoStaff(
  db: Database,
  options: {
    dataDir: string;
    adminPassword?: string | undefined;
    teamPassword?: string | undefined;
  },
): Promise<string> {
  const accounts = [
    { email: 'admin@example.com', role: 'admin' as const, password: options.adminPassword },
    { email: 'team@example.com', role: 'team' as const, password: options.teamPassword },
  ];
  const lines = [
    'Demo staff accounts (development only). Sign in at /team-login.',
    'Change or remove them with `npm run staff`; a restart never changes them.',
    '',
  ];
  let createdCount = 0;
  for (const account of accounts) {
    const password = account.password ?? generatePassword();
    const [created] = await db
      .insert(staff)
      .values({
        email: account.email,
        role: account.role,
        passwordHash: await hashPassword(password),
      })
      .onConflictDoNothing()
      .returning({ id: staff.id });
    if (created) {
      lines.push(`${account.email}  ${password}`);
      createdCount += 1;
    }
  }
  const file = demoStaffPasswordFile(options.dataDir);
  if (createdCount === 0) return file;
  fs.mkdirSync(options.dataDir, { recursive: true });
  fs.writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return file;
}
