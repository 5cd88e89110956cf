import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../lib/tokens.ts';
import { openDatabase, type DatabaseHandle } from '../db/client.ts';
import { staff } from '../db/schema.ts';
import { seedDemoStaff } from './staff.ts';

let database: DatabaseHandle;
let dataDir: string;
beforeAll(async () => {
  database = await openDatabase({ kind: 'memory' });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'farmcam-demo-staff-'));
});
afterAll(async () => {
  await database.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const passwordOf = (file: string, email: string) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .find((line) => line.startsWith(`${email} `))
    ?.split(/\s+/)[1];

describe('demo staff accounts', () => {
  it('are made once, with passwords only in a file only the owner can read', async () => {
    const file = await seedDemoStaff(database.db, {
      dataDir,
      teamPassword: 'the e2e team password',
    });
    expect(file).toBe(path.join(dataDir, 'demo-staff-passwords.txt'));
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const adminPassword = passwordOf(file, 'admin@example.com');
    expect(adminPassword).toMatch(/^[A-Za-z0-9_-]{16}$/);
    // The environment's password is taken as it is (the browser journeys sign in with it).
    expect(fs.readFileSync(file, 'utf8')).toContain('team@example.com  the e2e team password');

    const rows = await database.db.select().from(staff);
    expect(rows.map((row) => [row.email, row.role]).sort()).toEqual([
      ['admin@example.com', 'admin'],
      ['team@example.com', 'team'],
    ]);
    const admin = rows.find((row) => row.email === 'admin@example.com')!;
    expect(await verifyPassword(adminPassword!, admin.passwordHash!)).toBe(true);

    // A second run changes no password and leaves the file alone (the accounts exist already).
    const before = fs.readFileSync(file, 'utf8');
    await seedDemoStaff(database.db, { dataDir, adminPassword: 'another admin password' });
    const [after] = await database.db
      .select()
      .from(staff)
      .where(eq(staff.email, 'admin@example.com'));
    expect(after!.passwordHash).toBe(admin.passwordHash);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
  });
});
