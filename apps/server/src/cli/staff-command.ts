/**
 * `npm run staff -- <add|reset|list|remove>`: the only way staff accounts are made
 * (docs/decisions/062). It opens the configured database (DATABASE_URL, or the embedded one in
 * DATA_DIR, which needs the server stopped) and prints one-time set-password links; it never
 * prints or takes a password. The program is src/staff.ts; this is its testable body.
 */
import { DatabaseLockedError, openDatabase } from '../db/client.ts';
import { staffRoles, type StaffRole } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { systemClock } from '../lib/clock.ts';
import { createStaffAccountsService } from '../modules/auth/staff-accounts.service.ts';
import { configForCommand, parseCommandLine, type CommandOutput } from './command.ts';

const usage = `Usage: npm run staff -- <command>

  add EMAIL --role admin|team   create an account and print its set-password link
  reset EMAIL                   print a new set-password link (older links stop working)
  list                          show every account
  remove EMAIL                  delete the account and end its sessions

Links work once and for 24 hours. With the embedded database, stop the server first.`;

/**
 * Runs one command; returns the exit code. Output goes through `print` and the environment is
 * the process's unless given (tests pass both).
 */
export async function runStaffCommand(
  argv: string[],
  print: CommandOutput,
  environment?: Record<string, string | undefined>,
): Promise<number> {
  const parsed = parseCommandLine(
    argv,
    print,
    usage,
    { role: { type: 'string' } },
    { allowPositionals: true },
  );
  if (typeof parsed === 'number') return parsed;
  const [command, email, ...extra] = parsed.positionals;
  const needsEmail = command === 'add' || command === 'reset' || command === 'remove';
  if (
    !command ||
    !['add', 'reset', 'list', 'remove'].includes(command) ||
    (needsEmail && !email) ||
    extra.length > 0 ||
    (command === 'list' && email)
  ) {
    print.error(usage);
    return 2;
  }
  const role = parsed.values.role;
  if (command === 'add' && !staffRoles.includes(role as StaffRole)) {
    print.error(`add needs --role admin or --role team.\n\n${usage}`);
    return 2;
  }

  const config = configForCommand(print, environment);
  if (!config) return 1;
  let database;
  try {
    database = await openDatabase(
      config.databaseUrl
        ? { kind: 'postgres', url: config.databaseUrl }
        : { kind: 'directory', dataDir: config.dataDir },
    );
  } catch (error) {
    if (error instanceof DatabaseLockedError) {
      print.error(error.message);
      return 1;
    }
    throw error;
  }
  const accounts = createStaffAccountsService({
    db: database.db,
    clock: systemClock,
    publicUrl: config.publicUrl,
  });
  try {
    if (command === 'add') {
      const { link } = await accounts.addStaff({ email: email!, role: role as StaffRole });
      print.out(
        `Created ${email!.trim().toLowerCase()} (${role}). Send them this link to set a password:`,
      );
      print.out(`  ${link}`);
      print.out('It works once, within 24 hours.');
    } else if (command === 'reset') {
      const { link } = await accounts.resetStaffPassword(email!);
      print.out('A new set-password link (older links no longer work):');
      print.out(`  ${link}`);
      print.out('It works once, within 24 hours. The current password works until it is used.');
    } else if (command === 'remove') {
      const { revokedSessions } = await accounts.removeStaff(email!);
      print.out(
        `Removed ${email!.trim().toLowerCase()}; ended ${revokedSessions} session${revokedSessions === 1 ? '' : 's'}.`,
      );
    } else {
      const staff = await accounts.listStaff();
      if (staff.length === 0)
        print.out('No staff accounts yet. Add one with: add EMAIL --role admin');
      for (const member of staff) {
        print.out(
          `${member.email.padEnd(32)} ${member.role.padEnd(6)} ${member.hasPassword ? 'password set' : 'waiting for the set-password link'}`,
        );
      }
    }
    return 0;
  } catch (error) {
    if (error instanceof AppError) {
      print.error(error.message);
      return 1;
    }
    throw error;
  } finally {
    await database.close();
  }
}
