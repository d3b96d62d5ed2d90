/**
 * `npm run bench -- ab <ref> [--rounds N] [--only name,…]`: this checkout (B) against the commit
 * <ref> (A), side by side (issue 37). <ref> is checked out with `git worktree add --detach` into a
 * directory made under the OS temp dir (this checkout's node_modules linked into it), and both
 * trees run the same workloads in one loop, pair by pair, the order of each pair alternating
 * (AB, BA, AB, …) so that a drift of the host's speed falls on both sides alike. Every figure is
 * a CPU-time figure of a fresh process (user + system: a loaded host's run queue does not inflate
 * it), and is reported as the ratio B ÷ A of each pair: the median and the interquartile range of
 * the per-pair ratios. Wall times are recorded beside them, never judged. At the end the worktree
 * is removed and the temp directory deleted — only what this command created.
 *
 * Figures (higher is better for rates, lower for costs; the report says which):
 *   scenario-rate       the ten-step scenario's runs per CPU-second after warm-up (bench/ab/scenario-rate.ts)
 *   campaign-rate       the default campaign's runs per CPU-second in one process after a warm-up
 *                       campaign, start-up left out (bench/ab/campaign-rate.ts)
 *   twin-rate           faults-transparent's fault-free twin of the ten-step run alone, replays per
 *                       CPU-second (bench/ab/twin-rate.ts; its record's digest compared)
 *   default-campaign    `fuzz --workers 1`: runs per CPU-second of the whole process, start-up included
 *   provider-first-run  `fuzz --provider … --runs 1`: CPU ms from the CLI's start to exit
 *   cli-start           `--help`: CPU ms
 * Both trees' `--json` outputs of a campaign are compared too: a different output means the two
 * trees do not run the same workload (a behaviour change), which the report says.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli, WORKLOADS } from './profile/workloads.ts';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

interface Figure {
  readonly name: string;
  readonly unit: string;
  readonly better: 'higher' | 'lower';
  /** One measurement in the tree at `root`: the figure, wall ms, and a digest of its output. */
  measure(root: string): { value: number; wallMs: number; output: string };
}

function git(args: readonly string[], cwd = ROOT): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr.trim()}`);
  return r.stdout.trim();
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

function cliFigure(name: string, perRun: boolean): Figure {
  const w = WORKLOADS.find((x) => x.name === name);
  if (!w) throw new Error(`no workload ${name}`);
  return {
    name,
    unit: perRun ? 'runs per CPU-second' : 'CPU ms',
    better: perRun ? 'higher' : 'lower',
    measure(root) {
      const m = runCli(root, w.args);
      if (m.status !== 0) throw new Error(`${name} in ${root}: exit ${m.status}`);
      const value = perRun ? (m.runs ?? Number.NaN) / (m.cpuMs / 1000) : m.cpuMs;
      return { value, wallMs: m.wallMs, output: digest(m.stdout) };
    },
  };
}

/** Runs bench/ab/<name>.ts against `root` under tsx: its wall time and the last line it printed, as JSON. */
function abScript<T>(name: string, root: string): { readonly line: T; readonly wallMs: number } {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, `bench/ab/${name}.ts`), root], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0) throw new Error(`${name} in ${root}: ${r.stderr.slice(-2000)}`);
  return { line: JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as T, wallMs };
}

const scenarioRate: Figure = {
  name: 'scenario-rate',
  unit: 'runs per CPU-second',
  better: 'higher',
  measure(root) {
    const { line, wallMs } = abScript<{ runsPerCpuSecond: number }>('scenario-rate', root);
    return { value: line.runsPerCpuSecond, wallMs, output: '' };
  },
};

/** The default campaign in one process after a warm-up, start-up left out (bench/ab/campaign-rate.ts). */
const campaignRate: Figure = {
  name: 'campaign-rate',
  unit: 'runs per CPU-second',
  better: 'higher',
  measure(root) {
    const { line, wallMs } = abScript<{ runsPerCpuSecond: number; runs: number }>('campaign-rate', root);
    return { value: line.runsPerCpuSecond, wallMs, output: String(line.runs) };
  },
};

/** faults-transparent's fault-free twin of the ten-step run, alone (bench/ab/twin-rate.ts); output: its record's digest. */
const twinRate: Figure = {
  name: 'twin-rate',
  unit: 'replays per CPU-second',
  better: 'higher',
  measure(root) {
    const { line, wallMs } = abScript<{ replaysPerCpuSecond: number; digest: string }>('twin-rate', root);
    return { value: line.replaysPerCpuSecond, wallMs, output: line.digest };
  },
};

export const FIGURES: readonly Figure[] = [
  scenarioRate,
  campaignRate,
  twinRate,
  cliFigure('default-campaign', true),
  cliFigure('provider-first-run', false),
  cliFigure('cli-start', false),
];

/** The q-quantile of sorted values, linearly interpolated. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (at - lo);
}

export interface PairSummary {
  figure: string;
  unit: string;
  better: 'higher' | 'lower';
  pairs: number;
  medianA: number;
  medianB: number;
  /** Per-pair B ÷ A: median and interquartile range. */
  ratio: { median: number; q1: number; q3: number };
  wallMsMedian: { a: number; b: number };
  sameOutput: boolean;
}

export function summarise(
  f: Pick<Figure, 'name' | 'unit' | 'better'>,
  a: readonly number[],
  b: readonly number[],
  wall: { a: readonly number[]; b: readonly number[] },
  sameOutput: boolean,
): PairSummary {
  const ratios = a.map((x, i) => (b[i] as number) / x).sort((x, y) => x - y);
  const med = (v: readonly number[]) =>
    quantile(
      [...v].sort((x, y) => x - y),
      0.5,
    );
  const r3 = (n: number) => Math.round(n * 1000) / 1000;
  return {
    figure: f.name,
    unit: f.unit,
    better: f.better,
    pairs: ratios.length,
    medianA: Math.round(med(a)),
    medianB: Math.round(med(b)),
    ratio: {
      median: r3(quantile(ratios, 0.5)),
      q1: r3(quantile(ratios, 0.25)),
      q3: r3(quantile(ratios, 0.75)),
    },
    wallMsMedian: { a: Math.round(med(wall.a)), b: Math.round(med(wall.b)) },
    sameOutput,
  };
}

function parseArgs(argv: readonly string[]): { ref: string; rounds: number; only: string[] | undefined } {
  let ref: string | undefined;
  let rounds = 6;
  let only: string[] | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--rounds') rounds = Number(argv[++i]);
    else if (arg === '--only') only = (argv[++i] ?? '').split(',');
    else if (ref === undefined) ref = arg;
    else throw new Error(`unexpected argument ${arg}`);
  }
  if (ref === undefined) throw new Error('a <ref> is required');
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds must be a positive integer');
  for (const name of only ?? [])
    if (!FIGURES.some((f) => f.name === name))
      throw new Error(`--only: unknown figure ${name} (${FIGURES.map((f) => f.name).join(', ')})`);
  return { ref, rounds, only };
}

export async function abMain(argv: readonly string[]): Promise<number> {
  let options: ReturnType<typeof parseArgs>;
  try {
    options = parseArgs(argv);
  } catch (e) {
    console.error(`usage: npm run bench -- ab <ref> [--rounds N] [--only figure,…]\n${(e as Error).message}`);
    return 2;
  }
  let sha: string;
  try {
    sha = git(['rev-parse', '--verify', `${options.ref}^{commit}`]);
  } catch {
    console.error(`ab: ${options.ref} is not a commit of this repository`);
    return 2;
  }
  const figures = FIGURES.filter((f) => !options.only || options.only.includes(f.name));
  const temp = mkdtempSync(join(tmpdir(), 'cetp-ab-'));
  const tree = join(temp, 'tree');
  let added = false;
  const cleanUp = () => {
    if (added) {
      spawnSync('git', ['worktree', 'remove', '--force', tree], { cwd: ROOT });
      added = false;
    }
    rmSync(temp, { recursive: true, force: true });
  };
  const onSignal = () => {
    cleanUp();
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    git(['worktree', 'add', '--detach', tree, sha]);
    added = true;
    symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(tree, 'node_modules'));
    const head = git(['rev-parse', 'HEAD']);
    const dirty = git(['status', '--porcelain', '--untracked-files=no']) !== '';
    console.log(
      `ab: A = ${options.ref} (${sha.slice(0, 10)}) in ${tree}; B = this checkout (${head.slice(0, 10)}${dirty ? ', with uncommitted changes' : ''}); ${options.rounds} pairs per figure; load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    const results: PairSummary[] = [];
    for (const f of figures) {
      // One untimed pass of each side first: disk caches, the worker bundle, tsx's cache.
      f.measure(tree);
      f.measure(ROOT);
      const a: number[] = [];
      const b: number[] = [];
      const wall = { a: [] as number[], b: [] as number[] };
      const outputs = { a: new Set<string>(), b: new Set<string>() };
      for (let round = 0; round < options.rounds; round++) {
        const order: ('a' | 'b')[] = round % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
        for (const side of order) {
          const m = f.measure(side === 'a' ? tree : ROOT);
          (side === 'a' ? a : b).push(m.value);
          wall[side].push(m.wallMs);
          outputs[side].add(m.output);
        }
      }
      const same = [...outputs.a].join() === [...outputs.b].join();
      const s = summarise(f, a, b, wall, same);
      results.push(s);
      console.log(
        `  ${f.name.padEnd(20)} A ${s.medianA} → B ${s.medianB} ${f.unit}: B÷A ×${s.ratio.median} (IQR ${s.ratio.q1} – ${s.ratio.q3}, ${s.pairs} pairs; ${f.better} is better)${same ? '' : ' — OUTPUTS DIFFER'}`,
      );
    }
    const out = join(ROOT, 'bench/results/ab.json');
    const record = {
      suite: 'ab',
      measuredAt: new Date().toISOString(),
      node: process.version,
      a: { ref: options.ref, commit: sha },
      b: { commit: head, uncommittedChanges: dirty },
      rounds: options.rounds,
      loadAfter: loadavg().map((l) => Math.round(l * 100) / 100),
      figures: results,
    };
    writeFileSync(out, `${JSON.stringify(record, null, 2)}\n`);
    console.log(`  wrote ${out}`);
    return 0;
  } catch (e) {
    console.error(`ab: ${(e as Error).message}`);
    return 1;
  } finally {
    cleanUp();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (existsSync(temp)) console.error(`ab: could not remove ${temp}`);
  }
}
