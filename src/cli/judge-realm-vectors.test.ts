/**
 * `vectors run --provider` judged in a realm user code never enters (issue #31), end to end through
 * the CLI. The control is the alerts app with a mispriced quote (env-success fails at step 1). Two
 * forgers at load: one patches node:util's isDeepStrictEqual — which the vector matchers compare
 * literals with — in its own thread, so that there every literal "matches" (exit 0 while the vectors
 * were judged in the worker); one wraps its worker's `parentPort.postMessage` and rewrites every
 * failing outcome to `pass`. Node's built-in modules' exports are watched (module-globals), so both
 * are refused at load, naming the export. The same isDeepStrictEqual patch made in install() — no
 * vector's run is watched for it — fails here as the control fails, the forge named first; the CLI's
 * thread (this test's: `main` runs in it) imports no user module and its node:util was never patched.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { main } from './main.ts';
import { userModulesImportedHere } from './module-loader.ts';
import { memoryIo } from './testing.ts';
import { MODULE_FORGES_VERDICT, runsJudgedHere } from './worker/judge.ts';

const HOSTILE = 'src/cli/testdata/hostile';

interface Report {
  ok: boolean;
  claims: Record<string, string>;
  vectors: { id: string; status: string; failures?: { step: number; path: string; message: string }[] }[];
}

async function vectors(
  module: string,
): Promise<{ code: number; report: Report & { error?: { code: string; message: string } } }> {
  const io = memoryIo();
  const ids = ['--id', 'env-success', 'desc-v1-list-read-only'];
  const code = await main(['vectors', 'run', '--provider', `${HOSTILE}/${module}`, ...ids, '--json'], io);
  return { code, report: JSON.parse(io.stdout[0] ?? '{}') as Report };
}

describe('vectors judged apart from the judged', () => {
  it("a module that patches the vector matchers or its worker's port at load is refused; patching the matchers in install() fails where the unpatched control fails, naming the forge", async () => {
    const judgedBefore = runsJudgedHere();
    const control = await vectors('mispriced.provider.ts');
    expect(control.code).toBe(1);
    const failing = control.report.vectors.find((v) => v.id === 'env-success');
    expect(failing?.status).toBe('fail');
    expect(failing?.failures?.[0]?.message).toMatch(/expected 190, got 191/);
    for (const [forger, patched] of [
      ['forges-vector-judge.provider.ts', 'node:util.isDeepStrictEqual'],
      ['forges-vector-result.provider.ts', 'node:worker_threads.parentPort.postMessage'],
    ] as const) {
      const refused = await vectors(forger);
      expect(refused.code, forger).toBe(2);
      expect(refused.report.error?.code).toBe('module_patches_globals');
      expect(refused.report.error?.message).toContain(`loading the module replaced ${patched} — `);
    }
    for (const forger of ['forges-vector-judge-in-install.provider.ts']) {
      const forged = await vectors(forger);
      expect(forged.code, forger).toBe(1);
      expect(forged.report.ok).toBe(false);
      expect(forged.report.claims.core).toBe('not met');
      const [desc, env] = forged.report.vectors;
      expect(desc).toEqual(control.report.vectors[0]);
      expect(env?.status).toBe('fail');
      expect(env?.failures?.[0]?.message, forger).toMatch(
        new RegExp(`^${MODULE_FORGES_VERDICT}: the worker running the module reported the vector passing`),
      );
      expect(env?.failures?.slice(1)).toEqual(failing?.failures);
    }
    // Judged in this thread — the CLI's — from the records: every vector of the two runs.
    expect(runsJudgedHere() - judgedBefore).toBeGreaterThanOrEqual(4);
    expect(userModulesImportedHere()).toEqual([]);
    expect(isDeepStrictEqual(190, 191)).toBe(false);
  }, 300_000);
});
