/**
 * `npm run bench -- profile`: where a run's time goes (issue 37). Runs the default campaign and a
 * `--provider` campaign as fresh CLI processes under V8's sampling profiler (`--cpu-prof`, every
 * thread of the process writes its own profile), attributes each sample to a category
 * (bench/profile/attribute.ts), and prints the shares, which add up to 100%. Then times each
 * workload once more without the profiler, by CPU time (user + system), for runs per CPU-second.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Attribution,
  attribute,
  CATEGORIES,
  type CpuProfile,
  merge,
  shares,
} from './profile/attribute.ts';
import { runCli, WORKLOADS } from './profile/workloads.ts';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

export interface ProfiledWorkload {
  name: string;
  what: string;
  command: string;
  /** Sampled CPU time of every thread, ms, and the profiles (threads) it came from. */
  sampledMs: number;
  threads: number;
  sharesPercent: Record<string, number>;
  byCategoryMs: Record<string, number>;
  topFiles: { file: string; ms: number }[];
  topFunctions: { fn: string; ms: number }[];
  /** Without the profiler: the process's CPU (user + system) and wall time, and runs per CPU-second. */
  unprofiled: {
    cpuMs: number;
    wallMs: number;
    runs: number | undefined;
    runsPerCpuSecond: number | undefined;
  };
}

function round(n: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

export async function profileBenchmark(
  log: (line: string) => void,
  names: readonly string[] = ['default-campaign', 'provider-campaign', 'failing-campaign'],
): Promise<{ loadBefore: number[]; loadAfter: number[]; workloads: ProfiledWorkload[] }> {
  const loadBefore = loadavg().map((l) => round(l, 2));
  const workloads: ProfiledWorkload[] = [];
  for (const w of WORKLOADS.filter((x) => names.includes(x.name))) {
    const dir = mkdtempSync(join(tmpdir(), 'cetp-profile-'));
    try {
      // Profiled from the sources (CETP_SIM_FROM=tsx): the CLI's cached esbuild bundle puts every
      // module in one file, and attribute() charges a sample by its file. The unprofiled run below
      // is the CLI as a user runs it (the bundle).
      const run = runCli(ROOT, w.args, ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-interval', '200'], {
        ...process.env,
        CETP_SIM_FROM: 'tsx',
      });
      // A failing campaign exits 1 by design; anything else is the workload breaking.
      if (run.status !== 0 && !(w.name === 'failing-campaign' && run.status === 1))
        throw new Error(`${w.name}: exit ${run.status}`);
      const parts: Attribution[] = [];
      for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
        const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
        parts.push(attribute(profile, [ROOT]));
      }
      const all = merge(parts);
      const plain = runCli(ROOT, w.args);
      const entry: ProfiledWorkload = {
        name: w.name,
        what: w.what,
        command: `node bin/cetp-sim.js ${w.args.join(' ')}`,
        sampledMs: round(all.totalMs, 0),
        threads: parts.length,
        sharesPercent: shares(all),
        byCategoryMs: Object.fromEntries(CATEGORIES.map((c) => [c, round(all.byCategory[c], 0)])),
        topFiles: all.topFiles.map((f) => ({ file: f.file, ms: round(f.ms, 0) })),
        topFunctions: all.topFunctions.map((f) => ({ fn: f.fn, ms: round(f.ms, 0) })),
        unprofiled: {
          cpuMs: round(plain.cpuMs, 0),
          wallMs: round(plain.wallMs, 0),
          runs: plain.runs,
          runsPerCpuSecond:
            plain.runs === undefined ? undefined : round(plain.runs / (plain.cpuMs / 1000), 0),
        },
      };
      workloads.push(entry);
      log(
        `  ${w.name}: ${entry.sampledMs} ms sampled on ${entry.threads} thread(s); unprofiled ${entry.unprofiled.cpuMs} ms CPU, ${entry.unprofiled.runs ?? '–'} runs (${entry.unprofiled.runsPerCpuSecond ?? '–'} per CPU-second)`,
      );
      const total = Object.values(entry.sharesPercent).reduce((s, v) => s + v, 0);
      for (const c of CATEGORIES) {
        const share = entry.sharesPercent[c] ?? 0;
        if (share > 0) log(`    ${share.toFixed(1).padStart(5)}%  ${c}`);
      }
      log(`    ${total.toFixed(1).padStart(5)}%  (sum)`);
      log(
        `    heaviest files: ${entry.topFiles
          .slice(0, 8)
          .map((f) => `${f.file} ${f.ms} ms`)
          .join(', ')}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return { loadBefore, loadAfter: loadavg().map((l) => round(l, 2)), workloads };
}
