/**
 * `serve --stdio` sessions are incremental (issue #32, item 4): a session keeps its world running
 * between requests, so 10,000 pipelined calls in one session finish (each request used to replay
 * the whole session: 1,000 calls took 21 s, 10,000 never finished), answering each as the replayed
 * session did (the Java runner's whole-corpus transcript is byte-identical; test/java-runner.test.ts).
 * Figures: bench/serve.bench.ts, bench/results/serve.json.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NEGOTIATE, serveSession } from '../../../bench/serve.bench.ts';
import { PACKAGE_ROOT } from '../../harness/root.ts';

describe('serve sessions are incremental', () => {
  it('10,000 pipelined calls in one session over stdio all finish, one ok answer each', () => {
    const calls = Array.from({ length: 10_000 }, (_, i) =>
      JSON.stringify({ id: i, op: 'call', method: 'list_tools', arg: null, extras: null }),
    );
    const input = ['{"op":"open","fixture":"alerts","seed":"vector:many"}', NEGOTIATE, ...calls, ''].join(
      '\n',
    );
    const r = spawnSync(process.execPath, [join(PACKAGE_ROOT, 'bin/cetp-sim.js'), 'serve', '--stdio'], {
      input,
      encoding: 'utf8',
      timeout: 120_000,
      killSignal: 'SIGKILL',
      maxBuffer: 1 << 30,
    });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(10_002);
    expect(lines.filter((l) => !l.includes('"ok":true'))).toEqual([]);
    expect(JSON.parse(lines.at(-1) ?? '{}').id).toBe(9_999);
  }, 150_000);

  it('the same session twice gives the same bytes, and a call answers the same late in a session as early', async () => {
    const a = await serveSession(300);
    expect(await serveSession(300)).toEqual(a);
    expect(a[2]).toBe(a[301]);
  });
});
