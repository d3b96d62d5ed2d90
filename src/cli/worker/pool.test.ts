/**
 * The jobs of mutants, ablate and vectors run answer the same in a worker thread as in the CLI's own
 * thread: one worker, started once, serves all three (the commands' tests may finish on the CLI's
 * thread alone before a worker has loaded, so this is where the worker's side is pinned down).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadCorpus, runInputs } from '../../vectors/corpus.ts';
import { DEFAULT_VECTORS_DIR } from '../commands/vectors.ts';
import { InProcessHost, runSpread, WorkerHost } from './pool.ts';
import type { Job } from './protocol.ts';

const worker = new WorkerHost();
const inProcess = new InProcessHost();
afterAll(() => worker.close());

const envelope = runInputs(loadCorpus(DEFAULT_VECTORS_DIR)).find((f) => f.path.startsWith('envelope/'));

const jobs: [string, Job][] = [
  [
    'a planted bug hunted',
    { kind: 'mutant', mutant: 'v1-lists-write-tools', seed: 3, runsPerProperty: 50, tails: ['fifo', 'pct'] },
  ],
  ['a rule ablated', { kind: 'ablate', rule: 'CETP-2.1-06', seed: 0, runsPerProperty: 5, tails: ['fifo'] }],
  [
    'a vector file run',
    {
      kind: 'vectors',
      file: envelope ?? { path: 'missing' },
      dir: DEFAULT_VECTORS_DIR,
      profiles: ['core'],
      modules: {},
      cwd: process.cwd(),
    },
  ],
];

/** What is not a function of the job: the wall-clock fields. */
function withoutTimes(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, v) => (key === 'ms' || key === 'msToFailure' ? 0 : v)));
}

describe('a job in a worker thread and in the CLI thread', () => {
  it('shared jobs (the path of own code on more than one thread) answer the same in worker threads, in item order', async () => {
    const all = jobs.map(([, job]) => job);
    const here = await Promise.all(all.map((job) => inProcess.run(job, { budgetMs: 600_000 })));
    const there = await runSpread(all, {
      workers: 2,
      userCode: false,
      cliThreadWorks: false,
      run: (host, job) => host.run(job, { budgetMs: 600_000 }),
    });
    expect(there.map((end) => end.kind)).toEqual(all.map(() => 'done'));
    const results = (ends: typeof here) => ends.map((end) => (end.kind === 'done' ? end.result : end));
    expect(withoutTimes(results(there))).toEqual(withoutTimes(results(here)));
  });

  it.each(jobs)('%s: the same answer', async (_, job) => {
    const here = await inProcess.run(job, { budgetMs: 600_000 });
    const there = await worker.run(job, { budgetMs: 600_000 });
    expect(there.kind).toBe('done');
    expect(withoutTimes(there)).toEqual(withoutTimes(here));
    expect(JSON.stringify(here)).not.toBe('{"kind":"done","result":[]}');
  });
});
