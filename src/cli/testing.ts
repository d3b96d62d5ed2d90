/** The CLI test kit: an in-memory Io, the CLI run in-process, scratch folders and the failing fuzz run many tests replay. */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pc from 'picocolors';
import { afterAll, afterEach, expect } from 'vitest';
import type { SendValue } from '../vectors/format.ts';
import type { CallAction } from './commands/serve-requests.ts';
import type { Io } from './io.ts';
import { main } from './main.ts';
import { WorkerHost } from './worker/pool.ts';
import type { LoadOutcome } from './worker/protocol.ts';

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

/** A serve `call` of `method` in the CETP envelope under session `token`, 30 s to its deadline, then `extras`. */
export function sessionCall(
  method: string,
  token: string,
  requestId: string,
  extras: Readonly<Record<string, SendValue>> = {},
): CallAction {
  return {
    op: 'call',
    method,
    arg: null,
    extras: {
      protocol_version: { type: 'int', value: 2 },
      session_token: { type: 'string', value: token },
      request_id: { type: 'string', value: requestId },
      deadline_at_ms: { type: 'long', now_plus_ms: 30_000 },
      ...extras,
    },
  };
}

/** Runs the CLI on bad input: exit 2, and what it printed names `naming`. */
export async function expectBadInput(args: readonly string[], naming: string): Promise<void> {
  const r = await runCli(args);
  expect(r.code).toBe(2);
  expect(r.stdout.join('\n')).toContain(naming);
}

/** Runs the same arguments twice and shows the two print the same bytes: the first run. */
export async function runCliTwiceAlike(args: readonly string[]): Promise<CliRun> {
  const first = await runCli(args);
  const second = await runCli(args);
  expect(first.stdout).toEqual(second.stdout);
  return first;
}

/** Runs the CLI as a process of its own (`node bin/cetp-sim.js …`, from the package root), waiting for it. */
export function runCliProcess(
  args: readonly string[],
  options: { timeoutMs: number; env?: NodeJS.ProcessEnv },
): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ['bin/cetp-sim.js', ...args], {
    encoding: 'utf8',
    timeout: options.timeoutMs,
    ...(options.env === undefined ? {} : { env: options.env }),
  });
}

/** A fresh folder under the OS temp dir, named `<prefix>XXXXXX`. */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A maker of scratch folders `prefix…`, each removed after the test that made it. */
export function scratchEach(prefix: string): () => string {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = tempDir(prefix);
    made.push(dir);
    return dir;
  };
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

/**
 * A scratch folder for the user modules a test file writes, and a worker host that loads them the way
 * the CLI does (a worker thread: boot.mjs, tsx, esm-hooks.mjs); both are closed after the file's tests.
 */
export function moduleScratch(prefix: string) {
  const root = tempDir(prefix);
  const host = new WorkerHost();
  afterAll(async () => {
    await host.close();
    rmSync(root, { recursive: true, force: true });
  });
  /** A folder `name` under the root holding `files`: its path. */
  const dir = (name: string, files: Record<string, string>): string => {
    const d = join(root, name);
    mkdirSync(d, { recursive: true });
    for (const [file, text] of Object.entries(files)) writeFileSync(join(d, file), text);
    return d;
  };
  /** Loads `modules` from `cwd` in a worker: what it found, or the error it was refused with. */
  const load = async (
    cwd: string,
    modules: { provider?: string; consumer?: string },
  ): Promise<LoadOutcome> => {
    const end = await host.run<LoadOutcome>({ kind: 'load', modules, cwd }, { budgetMs: 120_000 });
    if (end.kind !== 'done') throw new Error(end.reason);
    return end.result;
  };
  return { root, host, dir, load };
}
