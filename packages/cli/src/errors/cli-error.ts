import { EXIT, type ExitCode } from './exit-codes.js';

/** An expected failure of the CLI itself: the message is printed as is, the process exits with exitCode. */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.ERROR,
  ) {
    super(message);
  }
}

/** The command line is wrong or incomplete (exit 2). */
export class UsageError extends CliError {
  override name = 'UsageError';
  constructor(message: string) {
    super(message, EXIT.USAGE);
  }
}
