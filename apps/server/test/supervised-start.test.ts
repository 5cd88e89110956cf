/**
 * The systemd unit's command, run by hand as systemd would run it (docs/decisions/107): the
 * compiled server under node itself, in the unit's working directory, with the unit's
 * Environment= and the example environment file (filled in). It starts, prints nothing but JSON
 * lines (no warning, no banner), drains on SIGTERM sent to that one process (KillMode=mixed) and
 * exits 0. On PostgreSQL it runs the two roles of the production layout, farmcam@api and
 * farmcam@worker; on the embedded database the one-machine farmcam@all.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  environmentExample,
  parseUnitFile,
  readEnvironmentFileAsSystemd,
  repositoryRoot,
  splitUnitWords,
  systemdUnit,
} from './helpers/ops-files.ts';
import { createScratchDatabase, freePort, waitFor } from './helpers/server-processes.ts';

const serverUrl = process.env.TEST_DATABASE_URL;
const service = parseUnitFile(fs.readFileSync(systemdUnit, 'utf8')).Service!;
const unitRoot = service.WorkingDirectory![0]!;

interface Unit {
  role: string;
  child: ChildProcess;
  baseUrl: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

describe('the systemd unit, its ExecStart run by hand', () => {
  let installRoot = '';
  let dropDatabase: (() => Promise<void>) | undefined;
  let databaseUrl: string | undefined;
  const units: Unit[] = [];

  beforeAll(async () => {
    // An installation as docs/production.md lays it out (/srv/farmcam): the packages and the build.
    installRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'farmcam-install-'));
    fs.symlinkSync(
      path.join(repositoryRoot, 'node_modules'),
      path.join(installRoot, 'node_modules'),
    );
    const build = spawnSync(
      process.execPath,
      [
        path.join(repositoryRoot, 'apps/server/scripts/build.mjs'),
        path.join(installRoot, 'apps/server/dist'),
      ],
      { encoding: 'utf8' },
    );
    expect(build.status, build.stderr).toBe(0);
    if (serverUrl) {
      const database = await createScratchDatabase(serverUrl, 'supervised');
      databaseUrl = database.url;
      dropDatabase = database.drop;
    }
  }, 60_000);

  afterAll(async () => {
    for (const unit of units) {
      if (unit.child.exitCode === null && unit.child.signalCode === null) {
        unit.child.kill('SIGKILL');
        await unit.exited;
      }
    }
    await dropDatabase?.();
    if (installRoot) fs.rmSync(installRoot, { recursive: true, force: true });
  });

  /** `systemctl start farmcam@ROLE`, as far as this machine allows: the same command and environment. */
  async function startUnit(role: string): Promise<Unit> {
    const port = await freePort();
    const dataDir = fs.mkdtempSync(path.join(installRoot, `data-${role}-`));
    const unitEnvironment = Object.fromEntries(
      service.Environment!.flatMap(splitUnitWords).map((assignment) => {
        const [name, ...value] = assignment.replaceAll('%i', role).split('=');
        return [name!, value.join('=')];
      }),
    );
    // The operator's copy of the example, filled in: a real token, this machine's services.
    const fileEnvironment = readEnvironmentFileAsSystemd(
      fs
        .readFileSync(environmentExample, 'utf8')
        .replaceAll('change-me-to-the-output-of-openssl-rand-hex-32', 'a'.repeat(64))
        .replaceAll('change-me', 'Sw0rdfish-7'),
    );
    const environment: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      ...unitEnvironment,
      // EnvironmentFile= wins over Environment= (systemd.exec(5)).
      ...fileEnvironment,
      // This machine: its database, a free port, a data folder (StateDirectory= makes one), no
      // SIM platform, bucket or mail server (the example's hosts do not exist here; nothing is
      // sent), and a short drain so the test does not wait the example's 12 s.
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      SMTP_URL: 'smtp://portal:Sw0rdfish-7@127.0.0.1:9',
      STORAGE: 'fs',
      CONNECTIVITY: 'local',
      SHUTDOWN_GRACE_SECONDS: '2',
    };
    if (databaseUrl) environment.DATABASE_URL = databaseUrl;
    else delete environment.DATABASE_URL;

    const [executable, ...args] = splitUnitWords(service.ExecStart![0]!).map((word) =>
      word.startsWith(`${unitRoot}/`) ? word.replace(unitRoot, installRoot) : word,
    );
    const child = spawn(executable!, args, {
      cwd: installRoot,
      env: environment,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const unit: Unit = {
      role,
      child,
      baseUrl: `http://127.0.0.1:${port}`,
      stdout: () => stdout,
      stderr: () => stderr,
      exited,
    };
    units.push(unit);
    await waitFor(
      `farmcam@${role} ready`,
      async () => {
        if (child.exitCode !== null) {
          throw new Error(`farmcam@${role} exited ${child.exitCode}:\n${stdout}${stderr}`);
        }
        return (await fetch(`${unit.baseUrl}/api/readyz`)).status === 200;
      },
      { timeoutMs: 60_000 },
    );
    return unit;
  }

  /** systemctl stop with KillMode=mixed: SIGTERM to node alone; it drains, then exits. */
  async function stopUnit(unit: Unit): Promise<void> {
    unit.child.kill('SIGTERM');
    // Draining once node has the signal: still serving, but the load balancer's probe says to
    // take it out (within the 2 s grace).
    const readiness = await waitFor(
      `farmcam@${unit.role} draining`,
      async () => {
        const response = await fetch(`${unit.baseUrl}/api/readyz`);
        return response.status === 503 && ((await response.json()) as { status: string });
      },
      { timeoutMs: 1500, intervalMs: 50 },
    );
    expect(readiness).toMatchObject({ status: 'draining' });
    expect(await unit.exited, `farmcam@${unit.role}:\n${unit.stdout()}${unit.stderr()}`).toBe(0);
  }

  /** Every line JSON, nothing on stderr: what journald and a log shipper expect. */
  function expectJsonLinesOnly(unit: Unit): Record<string, unknown>[] {
    expect(unit.stderr(), `farmcam@${unit.role} wrote to stderr`).toBe('');
    const lines = unit.stdout().split('\n').filter(Boolean);
    return lines.map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`farmcam@${unit.role} printed a line that is not JSON: ${line}`);
      }
    });
  }

  const roles = serverUrl ? ['worker', 'api'] : ['all'];

  it(`starts ${roles.map((role) => `farmcam@${role}`).join(' and ')}, logs JSON lines only, and stops cleanly on SIGTERM`, async () => {
    const started: Unit[] = [];
    for (const role of roles) started.push(await startUnit(role));
    for (const unit of started) {
      expect((await fetch(`${unit.baseUrl}/api/healthz`)).status).toBe(200);
    }
    for (const unit of started) await stopUnit(unit);

    for (const unit of started) {
      const lines = expectJsonLinesOnly(unit);
      const messages = lines.map((line) => line.msg);
      if (unit.role === 'worker') expect(messages).toContain('Worker running: jobs and recorder');
      else expect(messages).toContain('Farmcam Portal is running at https://portal.example.com');
      expect(lines.at(-1)).toMatchObject({ msg: 'Shut down', signal: 'SIGTERM', isClean: true });
      // The example names the supplier: no start warning that invoices lack it.
      expect(unit.stdout()).not.toContain('Invoices do not name your business');
      expect(lines.filter((line) => (line.level as number) >= 40)).toEqual([]);
    }
  }, 120_000);
});
