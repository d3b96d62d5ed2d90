/** Output helpers: colours only on a terminal, JSON on request, errors without stack traces. */
import pc from 'picocolors';

import { CliError, EXIT_INTERNAL, EXIT_USAGE } from '../harness/errors.ts';

export interface Io {
  out(line: string): void;
  err(line: string): void;
  readonly isTty: boolean;
  readonly color: ReturnType<typeof pc.createColors>;
  /** Where a live progress bar may draw (a terminal on stderr); absent: no bar. */
  readonly progressStream?: NodeJS.WriteStream;
}

/**
 * A closed pipe (`cetp-sim fuzz | head -1`) is not an error of ours: stop quietly, as Unix tools do,
 * instead of letting the stream's EPIPE surface as an uncaught exception with a stack trace.
 */
function onStreamError(error: NodeJS.ErrnoException): void {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
}

function exitQuietlyOnClosedPipe(stream: NodeJS.WriteStream): void {
  if (!stream.listeners('error').includes(onStreamError)) stream.on('error', onStreamError);
}

export function processIo(): Io {
  exitQuietlyOnClosedPipe(process.stdout);
  exitQuietlyOnClosedPipe(process.stderr);
  const isTty = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
  return {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    isTty,
    color: pc.createColors(isTty),
    ...(process.stderr.isTTY && !process.env.CI ? { progressStream: process.stderr } : {}),
  };
}

/** Prints any error as one structured line (JSON with --json) and returns the exit code. */
export function reportError(io: Io, error: unknown, json: boolean): number {
  const local = error instanceof CliError;
  const code = local ? error.code : 'internal_error';
  const message = error instanceof Error ? error.message : String(error);
  const exit = local ? error.exitCode : EXIT_INTERNAL;
  if (json) {
    io.out(JSON.stringify({ error: { code, message } }));
  } else {
    io.err(`${io.color.red('error')} ${code}: ${message}`);
    if (!local) io.err('This is a bug in cetp-sim. Set CETP_SIM_DEBUG=1 to see the stack trace.');
    else if (exit === EXIT_USAGE) io.err("Run 'cetp-sim --help' for usage.");
  }
  if (!local && process.env.CETP_SIM_DEBUG && error instanceof Error) io.err(error.stack ?? '');
  return exit;
}
