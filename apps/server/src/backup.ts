/**
 * The backup program (docs/decisions/074): `npm run backup [-- --out DIR]` in development,
 * `node apps/server/dist/backup.js` on the compiled server.
 */
import { runBackupCommand } from './cli/backup-command.ts';

process.exitCode = await runBackupCommand(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  error: (line) => process.stderr.write(`${line}\n`),
});
