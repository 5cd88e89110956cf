/**
 * What the command-line programs (staff, backup, restore) share: where they print, reading their
 * arguments, and reading the configuration with a bad value reported as a message, not a stack
 * trace.
 */
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config/config.ts';

export interface CommandOutput {
  out(line: string): void;
  error(line: string): void;
}

/** The configuration, or undefined after printing what is wrong with it (exit code 1). */
export function configForCommand(
  print: CommandOutput,
  environment?: Record<string, string | undefined>,
): Config | undefined {
  try {
    return loadConfig(environment);
  } catch (error) {
    if (error instanceof ConfigError) {
      print.error(error.message);
      return undefined;
    }
    throw error;
  }
}

const helpOption = { help: { type: 'boolean', short: 'h' } } as const;

type CommandLineConfig<Options extends ParseArgsOptionsConfig> = {
  args: string[];
  options: Options & typeof helpOption;
  allowPositionals: boolean;
};

/**
 * The arguments read with node:util's parseArgs, `--help` (`-h`) added to `options`; or, after
 * printing the usage, the exit code: 0 when help was asked for, 2 for an unknown option or a
 * missing value (said before the usage).
 */
export function parseCommandLine<const Options extends ParseArgsOptionsConfig>(
  argv: string[],
  print: CommandOutput,
  usage: string,
  options: Options,
  { allowPositionals = false }: { allowPositionals?: boolean } = {},
): ReturnType<typeof parseArgs<CommandLineConfig<Options>>> | number {
  let parsed;
  try {
    parsed = parseArgs<CommandLineConfig<Options>>({
      args: argv,
      options: { ...options, ...helpOption },
      allowPositionals,
    });
  } catch (error) {
    print.error(`${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  if ((parsed.values as { help?: boolean }).help) {
    print.out(usage);
    return 0;
  }
  return parsed;
}
