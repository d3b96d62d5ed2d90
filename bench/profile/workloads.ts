/**
 * The workloads the profile and A/B suites measure: fresh CLI processes, as a user runs them.
 * Each is timed by the child's CPU time (user + system, from `/usr/bin/time`, or from a wrapper
 * that reads its own `process.resourceUsage()` when that binary is missing) — a loaded host's run
 * queue does not inflate CPU time the way it does wall time.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Workload {
  readonly name: string;
  /** What it measures, for the report. */
  readonly what: string;
  /** Arguments after `bin/cetp-sim.js`; `{tmp}` is a scratch directory, deleted after the run. */
  readonly args: readonly string[];
}

export const NOTES_PROVIDER = 'examples/notes-provider/notes.provider.ts';

export const WORKLOADS: readonly Workload[] = [
  {
    name: 'default-campaign',
    what: '`cetp-sim fuzz --workers 1` (every property, the default budget, seed 0)',
    args: ['fuzz', '--workers', '1', '--seed', '0', '--json'],
  },
  {
    name: 'provider-campaign',
    what: `\`cetp-sim fuzz --provider ${NOTES_PROVIDER} --workers 1\` (a user module through tsx in a worker)`,
    args: ['fuzz', '--provider', NOTES_PROVIDER, '--workers', '1', '--seed', '0', '--json'],
  },
  {
    name: 'failing-campaign',
    what: '`cetp-sim fuzz --mutant dedup-ignores-args --property idempotency --workers 1`: a planted bug found, then shrunk',
    args: [
      'fuzz',
      '--mutant',
      'dedup-ignores-args',
      '--property',
      'idempotency',
      '--workers',
      '1',
      '--seed',
      '0',
      '--json',
      '--out',
      '{tmp}',
    ],
  },
  {
    name: 'provider-first-run',
    what: `\`cetp-sim fuzz --provider ${NOTES_PROVIDER} --property idempotency --runs 1\`: CLI start to a user module's first run, and exit`,
    args: [
      'fuzz',
      '--provider',
      NOTES_PROVIDER,
      '--property',
      'idempotency',
      '--runs',
      '1',
      '--seed',
      '0',
      '--json',
    ],
  },
  {
    name: 'cli-start',
    what: '`cetp-sim --help`: the CLI start alone',
    args: ['--help'],
  },
];

export interface Measured {
  /** Wall time of the child, ms (noisy on a shared host: recorded, never a verdict). */
  wallMs: number;
  /** User + system CPU time of the child and its threads, ms. */
  cpuMs: number;
  /** Scenario runs the command reported (fuzz with --json), if any. */
  runs: number | undefined;
  status: number | null;
  stdout: string;
}

const TIME = '/usr/bin/time';

/** Runs `node [nodeArgs] <root>/bin/cetp-sim.js args` in `root` and measures it. */
export function runCli(
  root: string,
  args: readonly string[],
  nodeArgs: readonly string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): Measured {
  const dir = mkdtempSync(join(tmpdir(), 'cetp-bench-time-'));
  try {
    const out = join(dir, 'time');
    const node = [...nodeArgs, join(root, 'bin/cetp-sim.js'), ...args.map((a) => (a === '{tmp}' ? dir : a))];
    const useTime = existsSync(TIME);
    const started = process.hrtime.bigint();
    const child = useTime
      ? spawnSync(TIME, ['-o', out, '-f', '%U %S', process.execPath, ...node], {
          cwd: root,
          env,
          encoding: 'utf8',
          maxBuffer: 256 * 1024 * 1024,
        })
      : spawnSync(process.execPath, node, { cwd: root, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
    let cpuMs = Number.NaN;
    if (useTime && existsSync(out)) {
      const last = readFileSync(out, 'utf8').trim().split('\n').at(-1) ?? '';
      const [user, sys] = last.split(' ').map(Number);
      cpuMs = ((user ?? Number.NaN) + (sys ?? Number.NaN)) * 1000;
    }
    return { wallMs, cpuMs, runs: runsOf(child.stdout), status: child.status, stdout: child.stdout };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The total of `properties[].runs` in a fuzz --json report. */
export function runsOf(stdout: string): number | undefined {
  try {
    const report = JSON.parse(stdout) as { properties?: { runs?: number }[] };
    if (!Array.isArray(report.properties)) return undefined;
    return report.properties.reduce((sum, p) => sum + (p.runs ?? 0), 0);
  } catch {
    return undefined;
  }
}
