import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runStaffCommand } from './staff-command.ts';

// The command on the embedded database in DATA_DIR, as `npm run staff` runs it with the server stopped.
let dataDir: string;
beforeAll(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'farmcam-staff-command-'));
});
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

async function run(...argv: string[]) {
  const out: string[] = [];
  const error: string[] = [];
  const code = await runStaffCommand(
    argv,
    { out: (line) => out.push(line), error: (line) => error.push(line) },
    {
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      PUBLIC_URL: 'https://portal.example',
      LOG_LEVEL: 'silent',
    },
  );
  return { code, out: out.join('\n'), error: error.join('\n') };
}

describe('npm run staff', () => {
  it('adds, lists, resets and removes accounts, printing links and never a password', async () => {
    const added = await run('add', 'Boss@Example.com', '--role', 'admin');
    expect(added.code).toBe(0);
    expect(added.out).toMatch(
      /^Created boss@example\.com \(admin\)\. Send them this link to set a password:\n {2}https:\/\/portal\.example\/team-login\/set-password\/[A-Za-z0-9_-]{43}\nIt works once, within 24 hours\.$/,
    );

    expect((await run('add', 'boss@example.com', '--role', 'team')).error).toBe(
      'boss@example.com already has a staff account.',
    );

    const listed = await run('list');
    expect(listed.out).toMatch(/^boss@example\.com\s+admin\s+waiting for the set-password link$/);

    const reset = await run('reset', 'boss@example.com');
    expect(reset.code).toBe(0);
    expect(reset.out).toContain('https://portal.example/team-login/set-password/');
    expect(reset.out.match(/set-password\/(\S+)/)?.[1]).not.toBe(
      added.out.match(/set-password\/(\S+)/)?.[1],
    );

    expect(await run('remove', 'boss@example.com')).toMatchObject({
      code: 0,
      out: 'Removed boss@example.com; ended 0 sessions.',
    });
    expect((await run('list')).out).toBe(
      'No staff accounts yet. Add one with: add EMAIL --role admin',
    );
    expect(await run('remove', 'boss@example.com')).toMatchObject({
      code: 1,
      error: 'boss@example.com has no staff account.',
    });
  });

  it('explains its usage for a missing role, command or e-mail', async () => {
    expect(await run('add', 'someone@example.com')).toMatchObject({ code: 2 });
    expect((await run('add', 'someone@example.com', '--role', 'owner')).error).toMatch(
      /^add needs --role admin or --role team/,
    );
    expect((await run()).error).toMatch(/^Usage: npm run staff -- <command>/);
    expect((await run('reset')).code).toBe(2);
    expect((await run('delete', 'x@example.com')).code).toBe(2);
  });

  it('says so when the server holds the embedded database', async () => {
    // A running server's lock file: another live process (this one's parent) holds it.
    const lockFile = path.join(dataDir, 'portal.lock');
    fs.writeFileSync(lockFile, String(process.ppid));
    try {
      const result = await run('list');
      expect(result.code).toBe(1);
      expect(result.error).toMatch(/Another Farmcam Portal process .* Stop it first/);
    } finally {
      fs.rmSync(lockFile, { force: true });
    }
  });
});
