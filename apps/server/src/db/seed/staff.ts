/**
 * The two staff accounts: admin@example.com (admin) and team@example.com (team). Passwords come
 * from ADMIN_PASSWORD / TEAM_PASSWORD, or are generated once and kept in DATA_DIR (mode 600) so
 * the start banner can print them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { generatePassword, hashPassword, verifyPassword } from '../../lib/tokens.ts';
import type { Database } from '../client.ts';
import { staff, type StaffRole } from '../schema.ts';

export interface StaffCredential {
  email: string;
  role: StaffRole;
  password: string;
  source: 'environment' | 'generated';
}

export async function ensureStaffAccounts(
  db: Database,
  options: {
    dataDir: string;
    adminPassword?: string | undefined;
    teamPassword?: string | undefined;
  },
): Promise<StaffCredential[]> {
  const passwordFile = path.join(options.dataDir, 'staff-passwords.json');
  const stored: Record<string, string> = fs.existsSync(passwordFile)
    ? (JSON.parse(fs.readFileSync(passwordFile, 'utf8')) as Record<string, string>)
    : {};
  const accounts = [
    { email: 'admin@example.com', role: 'admin' as const, fromEnvironment: options.adminPassword },
    { email: 'team@example.com', role: 'team' as const, fromEnvironment: options.teamPassword },
  ];
  const credentials: StaffCredential[] = [];
  for (const account of accounts) {
    const password = account.fromEnvironment ?? stored[account.email] ?? generatePassword();
    if (!account.fromEnvironment) stored[account.email] = password;
    const [existing] = await db.select().from(staff).where(eq(staff.email, account.email));
    if (!existing) {
      await db
        .insert(staff)
        .values({
          email: account.email,
          role: account.role,
          passwordHash: await hashPassword(password),
        })
        .onConflictDoNothing();
    } else if (!(await verifyPassword(password, existing.passwordHash))) {
      await db
        .update(staff)
        .set({ passwordHash: await hashPassword(password), failedLogins: 0, lockedUntil: null })
        .where(eq(staff.id, existing.id));
    }
    credentials.push({
      email: account.email,
      role: account.role,
      password,
      source: account.fromEnvironment ? 'environment' : 'generated',
    });
  }
  fs.mkdirSync(options.dataDir, { recursive: true });
  fs.writeFileSync(passwordFile, JSON.stringify(stored, null, 2), { mode: 0o600 });
  return credentials;
}
