/**
 * The restore program (docs/decisions/074): `npm run restore -- <backup folder> [--force]` in
 * development, `node apps/server/dist/restore.js …` on the compiled server.
 */
import { runRestoreCommand } from './cli/restore-command.ts';

process.exitCode = await runRestoreCommand(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  error: (line) => process.stderr.write(`${line}\n`),
});
