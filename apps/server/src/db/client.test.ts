import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DatabaseLockedError, openDatabase } from './client.ts';

const serverEntry = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../server.ts');
const directories: string[] = [];
const temporaryDirectory = () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'farmcam-lock-'));
  directories.push(directory);
  return directory;
};
afterEach(() => {
  for (const directory of directories.splice(0))
    fs.rmSync(directory, { recursive: true, force: true });
});

describe('embedded database lock', () => {
  it('refuses a data directory locked by a live process and takes over a stale lock', async () => {
    const dataDir = temporaryDirectory();
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      fs.writeFileSync(path.join(dataDir, 'portal.lock'), String(sleeper.pid));
      await expect(openDatabase({ kind: 'directory', dataDir })).rejects.toBeInstanceOf(
        DatabaseLockedError,
      );
    } finally {
      sleeper.kill();
      await new Promise((resolve) => sleeper.once('exit', resolve));
    }
    const handle = await openDatabase({ kind: 'directory', dataDir });
    expect(fs.readFileSync(path.join(dataDir, 'portal.lock'), 'utf8')).toBe(String(process.pid));
    await handle.close();
    expect(fs.existsSync(path.join(dataDir, 'portal.lock'))).toBe(false);
  });

  it('makes a second server process on the same directory exit with a clear message', async () => {
    const dataDir = temporaryDirectory();
    const handle = await openDatabase({ kind: 'directory', dataDir });
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', serverEntry], {
        env: { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent' },
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exitCode = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(exitCode).toBe(1);
      expect(stderr).toMatch(
        /Another Farmcam Portal process \(pid \d+\) is using the embedded database/,
      );
    } finally {
      await handle.close();
    }
  });
});
