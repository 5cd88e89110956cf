/**
 * A restore with the local billing engine charges nothing twice (docs/decisions/109), proven
 * with real processes on PostgreSQL: the portal runs with the demo data, `npm run backup` saves
 * it, the test clock moves a month (renewals charged), the portal stops, `npm run restore`
 * refuses the backup until it is given --fence-billing, and the portal, started again on the
 * restored database, moves on two more months. Every charge made before the restore (the card
 * processor's own record, kept here outside the database) is charged once; the periods after
 * the fence are charged as usual.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createScratchDatabase,
  freePort,
  startServerProcess,
  stopServerProcess,
  waitUntilReady,
  type ServerProcess,
} from '../../test/helpers/server-processes.ts';

const serverUrl = process.env.TEST_DATABASE_URL;

interface Charge {
  subscription_id: string;
  period_start: string;
  amount: number;
  payment_id: string;
}

/** Runs a program the way npm does: a separate node process through tsx. */
function runProgram(program: string, argv: string[], environment: Record<string, string>) {
  const entry = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', program);
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...argv], {
    env: { ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'silent', ...environment },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
}

describe.skipIf(!serverUrl)(
  'restoring a backup with the local billing engine (needs TEST_DATABASE_URL: npm run test:pg)',
  () => {
    let scratch: { url: string; drop: () => Promise<void> };
    let database: pg.Pool;
    let dataDir: string;
    let outFolder: string;
    let environment: NodeJS.ProcessEnv;
    let server: ServerProcess | undefined;
    const started: ServerProcess[] = [];

    /** Every successful card charge of a renewal, as the card processor would list them. */
    const charges = async () =>
      (
        await database.query<Charge>(
          `select i.subscription_id, to_char(i.period_start at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') as period_start,
                  p.amount, p.id as payment_id
             from payments p join invoices i on i.id = p.invoice_id
            where p.status = 'succeeded' and i.subscription_id is not null
            order by i.period_start, i.subscription_id`,
        )
      ).rows;

    async function startPortal() {
      server = await startServerProcess(scratch.url, {
        name: 'portal',
        dataDir,
        port: await freePort(),
        environment,
      });
      started.push(server);
      await waitUntilReady(server);
      return server;
    }

    /** Moves the test clock a month through the portal's own page, as an operator would. */
    async function advanceOneMonth(portal: ServerProcess) {
      const response = await fetch(`${portal.baseUrl}/billing-engine/test-clock/advance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: portal.baseUrl },
        body: JSON.stringify({ months: 1 }),
      });
      expect(response.status, await response.clone().text()).toBe(200);
      return new Date(((await response.json()) as { now: string }).now);
    }

    const programEnvironment = () => ({
      DATABASE_URL: scratch.url,
      DATA_DIR: dataDir,
      BILLING: 'local',
    });

    beforeAll(async () => {
      scratch = await createScratchDatabase(serverUrl as string, 'farmcam_restore_billing');
      database = new pg.Pool({ connectionString: scratch.url, max: 2 });
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'farmcam-restore-billing-'));
      outFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'farmcam-restore-billing-out-'));
      environment = {
        BILLING: 'local',
        BILLING_TEST_CLOCK: 'true',
        LOCAL_CAMERA_PORT: String(await freePort()),
        SHUTDOWN_GRACE_SECONDS: '0',
      };
    }, 60_000);

    afterAll(async () => {
      for (const portal of started) await stopServerProcess(portal, 10_000);
      await database?.end().catch(() => undefined);
      await scratch?.drop();
      for (const folder of [dataDir, outFolder]) {
        if (folder) fs.rmSync(folder, { recursive: true, force: true });
      }
    }, 60_000);

    it('refuses the backup without --fence-billing, and with it charges nothing twice', async () => {
      let portal = await startPortal();
      const backup = await runProgram('backup.ts', ['--out', outFolder], programEnvironment());
      expect(backup.stderr).toBe('');
      expect(backup.code).toBe(0);
      expect(backup.stdout).toMatch(/local billing engine's ledger as of .*--fence-billing/);
      const setFolder = path.join(
        outFolder,
        fs.readdirSync(outFolder).find((name) => name.startsWith('farmcam-backup-'))!,
      );
      const atBackup = await charges();

      // After the backup: a month of renewals, charged to the cards.
      const movedTo = await advanceOneMonth(portal);
      const beforeRestore = await charges();
      const chargedAfterBackup = beforeRestore.filter(
        (charge) => !atBackup.some((saved) => saved.payment_id === charge.payment_id),
      );
      expect(chargedAfterBackup.length).toBeGreaterThan(0);
      await stopServerProcess(portal);

      // Without the flag: refused, and the database is left as it was.
      const refused = await runProgram('restore.ts', [setFolder, '--force'], programEnvironment());
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        /^Not restored: this backup holds \d+ subscriptions and \d+ unpaid invoices? of the local billing engine, .* would renew and charge again .* Run again with --fence-billing/,
      );
      expect(await charges()).toEqual(beforeRestore);

      const restored = await runProgram(
        'restore.ts',
        [setFolder, '--force', '--fence-billing'],
        programEnvironment(),
      );
      expect(restored.stderr).toBe('');
      expect(restored.code).toBe(0);
      const fenceAt = /Billing fence at (\S+): /.exec(restored.stdout)?.[1];
      // The fence is at least where the replaced database's billing had got to.
      expect(new Date(fenceAt!).getTime()).toBeGreaterThanOrEqual(movedTo.getTime());
      expect(await charges()).toEqual(atBackup);

      // The portal on the restored database: two more months of billing time.
      portal = await startPortal();
      const firstMove = await advanceOneMonth(portal);
      // The test clock did not go back with the restore.
      expect(firstMove.getTime()).toBeGreaterThan(movedTo.getTime());
      await advanceOneMonth(portal);
      const afterRestore = (await charges()).filter(
        (charge) => !atBackup.some((saved) => saved.payment_id === charge.payment_id),
      );
      const periodKey = (charge: Charge) => `${charge.subscription_id} ${charge.period_start}`;
      const chargedBefore = new Set(chargedAfterBackup.map(periodKey));
      // Nothing the card processor had charged before the restore was charged again...
      expect(afterRestore.filter((charge) => chargedBefore.has(periodKey(charge)))).toEqual([]);
      // ...nor anything already paid at the backup.
      expect(
        afterRestore.filter((charge) =>
          atBackup.some((saved) => periodKey(saved) === periodKey(charge)),
        ),
      ).toEqual([]);
      // The periods after the fence were charged as usual.
      expect(
        afterRestore.filter((charge) => charge.period_start > fenceAt!.slice(0, 19)).length,
      ).toBeGreaterThan(0);
      // Within the restored ledger too, each period was charged at most once.
      const periods = (await charges()).map(periodKey);
      expect(periods.length).toBe(new Set(periods).size);
    }, 540_000);
  },
);
