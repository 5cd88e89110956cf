/**
 * What the command-line programs (staff, backup, restore) share: where they print, and reading
 * the configuration with a bad value reported as a message, not a stack trace.
 */
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
