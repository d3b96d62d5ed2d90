/** An in-memory Io for CLI tests. */
import pc from 'picocolors';
import type { Io } from './io.ts';

export function memoryIo(): Io & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    out: (line) => stdout.push(line),
    err: (line) => stderr.push(line),
    isTty: false,
    color: pc.createColors(false),
  };
}
