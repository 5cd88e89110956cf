/**
 * The staff-accounts program (docs/decisions/062): `npm run staff -- add EMAIL --role admin`
 * in development, `node apps/server/dist/staff.js add …` on the compiled server.
 */
import { runStaffCommand } from './cli/staff-command.ts';

process.exitCode = await runStaffCommand(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  error: (line) => process.stderr.write(`${line}\n`),
});
