/**
 * Replays one concurrency run of the boundary benchmark and prints its trace — the reproduction the
 * spec finding (spec/findings/inline-limit-vs-binder-buffer.md) cites. Deterministic: the same
 * arguments print the same trace, byte for byte.
 *
 *   npx tsx bench/boundary/replay.ts --calls 2 --kib 256 --strategy fifo --seed 1 [--mermaid]
 *   npx tsx bench/boundary/replay.ts --calls 1 --kib 508 --inline-limit-kib 1024
 *   npx tsx bench/boundary/replay.ts --calls 4 --kib 256 --write     (the write tool `archive`)
 *   npx tsx bench/boundary/replay.ts --calls 2 --kib 256 --android 16  (a 16 KiB-page device's buffer)
 */
import { parseArgs } from 'node:util';
import { ANDROID_RELEASES, isAndroidRelease } from '../../src/sim/core/release.ts';
import { renderMermaid, renderText } from '../../src/sim/core/trace-render.ts';
import { replayConcurrentRun, type StrategyName } from './concurrency.ts';
import { KIB } from './payload.ts';

/** Scheduler and storage bookkeeping: left out so the story reads (fd and log noise go too). */
const OMIT = ['sched', 'task', 'store', 'pm', 'process', 'fd', 'fs', 'log'];

function positiveInt(name: string, text: string | undefined, fallback: number): number {
  const n = text === undefined ? fallback : Number(text);
  if (!Number.isSafeInteger(n) || n < 1) {
    console.error(`replay: --${name} must be a positive integer, got "${text}"`);
    process.exit(2);
  }
  return n;
}

const { values } = parseArgs({
  options: {
    calls: { type: 'string' },
    kib: { type: 'string' },
    strategy: { type: 'string' },
    seed: { type: 'string' },
    'inline-limit-kib': { type: 'string' },
    write: { type: 'boolean' },
    android: { type: 'string' },
    mermaid: { type: 'boolean' },
  },
});
const strategy = values.strategy ?? 'fifo';
if (!['fifo', 'random', 'pct'].includes(strategy)) {
  console.error(`replay: --strategy must be fifo, random or pct, got "${strategy}"`);
  process.exit(2);
}
const limitKib = values['inline-limit-kib'];
const android = values.android === undefined ? undefined : Number(values.android);
if (android !== undefined && !isAndroidRelease(android)) {
  console.error(`replay: --android must be one of ${ANDROID_RELEASES.join(', ')}, got "${values.android}"`);
  process.exit(2);
}
const spec = {
  concurrency: positiveInt('calls', values.calls, 2),
  sizeBytes: positiveInt('kib', values.kib, 256) * KIB,
  seed: positiveInt('seed', values.seed, 1),
  strategy: strategy as StrategyName,
  ...(limitKib === undefined
    ? {}
    : { maxInlineResultBytes: positiveInt('inline-limit-kib', limitKib, 256) * KIB }),
  ...(values.write ? { write: true } : {}),
  ...(android === undefined ? {} : { android }),
};
const run = await replayConcurrentRun(spec);
const events = run.world.trace.events;
console.log(values.mermaid ? renderMermaid(events, { omit: OMIT }) : renderText(events, { omit: OMIT }));
console.log(
  `\n${JSON.stringify(spec)}: ${run.transactions} execute_tool transactions, ${run.failedReplies} replies ` +
    `did not fit, outcomes ${JSON.stringify(run.outcomes.map((o) => o.kind))}, ${run.effects} effects, ` +
    `trace ${run.world.trace.hash()}`,
);
