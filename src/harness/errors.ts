/**
 * Local (harness) errors, of the command line and of the library alike: bad usage, bad input files,
 * a malformed fixture. They carry a stable code and a message for humans naming the file or field;
 * the CLI prints them without a stack trace and exits with 2, the library throws them as they are.
 * Exit codes: 0 success, 1 a property failed / a replay still fails, 2 bad usage or input,
 * 3 an internal error in cetp-sim itself.
 */
import type { CliErrorCode } from './error-codes.ts';

export { CLI_ERROR_CODES, CliErrorCode, isCliErrorCode } from './error-codes.ts';

export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    readonly code: CliErrorCode,
    message: string,
    readonly exitCode: 2 | 3 = 2,
  ) {
    super(message);
  }
}

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
export const EXIT_INTERNAL = 3;
