/**
 * The Java test files' skip switch (issue 32, item 7): CETP_SIM_SKIP_JAVA=1, or no javac / mvn on
 * the PATH, skips runners/java and runners/android with one printed line and exit 3 — never a
 * silent install or a wall of output; with CI=true a missing tool is a failure (exit 1). And when
 * scripts/java-deps.sh installs Debian packages as root, it says so first.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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

describe('scripts/java-deps.sh', () => {
  it('says that it installs, with apt-get as root, before it does', () => {
    // A PATH without javac and with a stand-in apt-get that only records its arguments.
    const fake = mkdtempSync(join(tmpdir(), 'cetp-aptget-'));
    for (const tool of ['bash', 'id']) symlinkSync(`/usr/bin/${tool}`, join(fake, tool));
    writeFileSync(join(fake, 'apt-get'), `#!/usr/bin/bash\necho "apt-get $*" >> '${join(fake, 'calls')}'\n`);
    chmodSync(join(fake, 'apt-get'), 0o755);
    try {
      const r = run('scripts/java-deps.sh', { PATH: fake, CI: '' });
      if (process.getuid?.() === 0) {
        expect(r.status).toBe(0);
        expect(r.out).toMatch(/^java-deps: installing default-jdk-headless\b.* with apt-get, as root /m);
        expect(readFileSync(join(fake, 'calls'), 'utf8')).toMatch(/^apt-get install .*default-jdk-headless/);
      } else {
        expect(r.status).toBe(3);
        expect(r.out).toMatch(/^java-deps: missing Debian packages: default-jdk-headless/m);
      }
    } finally {
      rmSync(fake, { recursive: true, force: true });
    }
  });
});
