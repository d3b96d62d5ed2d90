/**
 * The Java test files' skip switch (issue 32, item 7): CETP_SIM_SKIP_JAVA=1, or no javac / mvn on
 * the PATH, skips runners/java and runners/android with one printed line and exit 3 — never a
 * silent install or a wall of output; with CI=true a missing tool is a failure (exit 1).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../src/harness/root.ts';

const SCRIPTS = [
  ['runners/java/build.sh', 'java runner'],
  ['runners/android/build.sh', 'android runner'],
] as const;

/** A PATH with bash and what the scripts need before their tool check, but no javac or mvn. */
const bin = mkdtempSync(join(tmpdir(), 'cetp-nojava-'));
for (const tool of ['bash', 'dirname']) symlinkSync(`/usr/bin/${tool}`, join(bin, tool));
afterAll(() => rmSync(bin, { recursive: true, force: true }));

function run(script: string, env: Record<string, string>) {
  const r = spawnSync('/usr/bin/bash', [script], {
    cwd: PACKAGE_ROOT,
    encoding: 'utf8',
    env: { HOME: process.env.HOME ?? '/root', PATH: process.env.PATH ?? '', ...env },
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}`.trim() };
}

describe.each(SCRIPTS)('%s', (script, name) => {
  it('CETP_SIM_SKIP_JAVA=1 skips with one line, even with CI=true', () => {
    for (const ci of ['', 'true']) {
      expect(run(script, { CETP_SIM_SKIP_JAVA: '1', CI: ci })).toEqual({
        status: 3,
        out: `${name}: SKIPPED (CETP_SIM_SKIP_JAVA=1)`,
      });
    }
  });

  it('no javac on the PATH skips with one line naming it; with CI=true it fails', () => {
    const skipped = run(script, { PATH: bin, CI: '' });
    expect(skipped.status).toBe(3);
    expect(skipped.out.split('\n')).toHaveLength(1);
    expect(skipped.out).toMatch(new RegExp(`^${name}: SKIPPED — no javac on PATH`));
    const failed = run(script, { PATH: bin, CI: 'true' });
    expect(failed.status).not.toBe(0);
    expect(failed.status).not.toBe(3);
  });
});
