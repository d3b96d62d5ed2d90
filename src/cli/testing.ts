/** The CLI test kit: an in-memory Io, the CLI run in-process, scratch folders and the failing fuzz run many tests replay. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pc from 'picocolors';
import { expect } from 'vitest';
import type { Io } from './io.ts';
import { main } from './main.ts';

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

/** What one in-process CLI run printed: the lines, and the same lines joined as text. */
export interface CliRun {
  code: number;
  stdout: string[];
  stderr: string[];
  out: string;
  err: string;
}

/** Runs the CLI in-process (`main` with an in-memory Io): exit code and what it printed. */
export async function runCli(args: readonly string[]): Promise<CliRun> {
  const io = memoryIo();
  const code = await main([...args], io);
  return { code, stdout: io.stdout, stderr: io.stderr, out: io.stdout.join('\n'), err: io.stderr.join('\n') };
}

/** A fresh folder under the OS temp dir, named `<prefix>XXXXXX`. */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** The one JSON document a `--json` run printed (it must print exactly one line). */
export function onlyJson<T>(lines: readonly string[]): T {
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] ?? '') as T;
}

/** `fuzz` of the `versions` property with the planted bug it catches: exits 1, writes versions-0.replay.json. */
export const FAILING_VERSIONS_FUZZ = [
  'fuzz',
  '--json',
  '--mutant',
  'v1-lists-write-tools',
  '--property',
  'versions',
] as const;

/** One user module under `fuzz --json`: the options the module tests vary. */
export interface ModuleFuzz {
  role: 'provider' | 'consumer';
  module: string;
  runs: number;
  out: string;
  properties?: readonly string[];
  watchdogSeconds?: number;
  /** Further arguments, last. */
  extra?: readonly string[];
}

/** The arguments of `fuzz --json` over one `--provider` or `--consumer` module, in one order. */
export function moduleFuzzArgs(fuzz: ModuleFuzz): string[] {
  return [
    'fuzz',
    '--json',
    '--runs',
    String(fuzz.runs),
    ...(fuzz.watchdogSeconds === undefined ? [] : ['--watchdog', String(fuzz.watchdogSeconds)]),
    ...(fuzz.properties === undefined ? [] : ['--property', ...fuzz.properties]),
    `--${fuzz.role}`,
    fuzz.module,
    '--out',
    fuzz.out,
    ...(fuzz.extra ?? []),
  ];
}
