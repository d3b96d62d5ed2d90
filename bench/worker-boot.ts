/**
 * What one worker thread that loads a user's module costs to boot (issue 37, worker-boot): N
 * WorkerHosts started one after the other (the entry user-module workers get, boot.mjs), each until
 * it answers a load job of a `.ts` provider module, then closed. CPU of the whole process (every
 * thread: the worker's, its module-hooks thread, GC helpers) by process.cpuUsage around each boot.
 *
 *   npx tsx bench/worker-boot.ts [N] [module]
 *
 * Prints each boot's CPU and wall, then the median. The split bundle is built (or found) first.
 *
 * Worker threads inherit the process's loader flags: run under tsx (`npx tsx`, `node --import tsx`),
 * each worker would preload tsx's hooks before boot.mjs — a hooks thread and a CommonJS loader the
 * CLI's workers (plain `node bin/cetp-sim.js`, or a test's in-process CLI) never have. So under tsx
 * this script runs itself again from one bundled JavaScript file (bundler.mjs), in a plain node.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { userCodeBundle } from '../src/cli/worker/bundle.ts';
import { BOOT, mustFinish, WorkerHost } from '../src/cli/worker/worker-host.ts';

if (process.execArgv.some((flag) => flag.includes('tsx'))) {
  const { cachedBundle } = await import('../src/cli/worker/bundler.mjs');
  const bundle = fileURLToPath(await cachedBundle(fileURLToPath(import.meta.url)));
  const child = spawnSync(process.execPath, [bundle, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(child.status ?? 1);
}

const count = Number(process.argv[2] ?? 6);
const module = resolve(process.argv[3] ?? 'src/cli/testdata/my-alerts.provider.ts');

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function boot(): Promise<{ cpuMs: number; wallMs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const host = new WorkerHost(BOOT);
  await host.ready();
  await mustFinish(host, { kind: 'load', modules: { provider: module }, cwd: process.cwd() }, 60_000);
  await host.close();
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - started };
}

await userCodeBundle({ provider: module });
await boot(); // warm: the CLI's side (first imports) and the OS's file cache
const cpus: number[] = [];
for (let i = 0; i < count; i++) {
  const { cpuMs, wallMs } = await boot();
  cpus.push(cpuMs);
  console.log(`boot ${i + 1}: ${cpuMs.toFixed(0)} ms CPU, ${wallMs.toFixed(0)} ms wall`);
}
console.log(`median ${median(cpus).toFixed(0)} ms CPU per boot (${count} boots, ${module})`);
