/**
 * User modules load anywhere (issue #14): a `.ts` (or `.js`) ES module in a directory outside the
 * repo — with no package.json, with "type": "module", with "type": "commonjs" — importing cetp-sim's
 * sources and its own sibling files; a CommonJS `.ts` module too. Loaded the way the CLI loads them:
 * in a worker thread (boot.mjs: tsx, then esm-hooks.mjs). Before the hooks, tsx compiled such a
 * file as CommonJS and Node refused it ("Cannot require() ES Module … in a cycle").
 */
import { mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliError } from '../harness/errors.ts';
import { moduleScratch, runCli } from './testing.ts';

// A module of a user's own (public API only: src/cli/worker/boundary.mjs) that exports ALERTS.
const FIXTURES = JSON.stringify(resolve('src/cli/testdata/hostile/alerts-fixture.mjs'));
const CONSUMER = JSON.stringify(resolve('src/index.ts'));
const { root, dir, load } = moduleScratch('cetp-sim-modules-');

const ESM_PROVIDER = (name: string) =>
  `import { ALERTS, type ProviderFixture } from ${FIXTURES};\nimport { suffix } from './helper.ts';\n` +
  `const mine: ProviderFixture = { ...ALERTS, name: '${name}' + suffix };\nexport const providers = [mine];\n`;

const helper = { 'helper.ts': "export const suffix: string = '_x';\n" };

describe('user modules outside the repo', () => {
  it.each([
    ['no package.json', {}],
    ['"type": "module"', { 'package.json': '{"name":"mine","type":"module"}' }],
    ['"type": "commonjs"', { 'package.json': '{"name":"mine","type":"commonjs"}' }],
    ['a package.json without "type"', { 'package.json': '{"name":"mine"}' }],
  ])('a .ts ES module loads with %s (and its sibling .ts import)', async (label, extra) => {
    const d = dir(label.replace(/\W+/g, '-'), { ...extra, ...helper, 'p.provider.ts': ESM_PROVIDER('mine') });
    expect(await load(d, { provider: './p.provider.ts' })).toEqual({
      provider: { specifier: './p.provider.ts', names: ['mine_x'] },
    });
  });

  it('a .ts consumer module (no package.json) loads by absolute path from another directory', async () => {
    const d = dir('consumer', {
      'c.consumer.ts': `import { referenceConsumer } from ${CONSUMER};\nexport const consumer = { ...referenceConsumer, name: 'mine' };\n`,
    });
    const file = join(d, 'c.consumer.ts');
    expect(await load(root, { consumer: file })).toEqual({ consumer: { specifier: file, name: 'mine' } });
  });

  it('a .js ES module without package.json and a CommonJS .ts module load too', async () => {
    const d = dir('js-and-cjs', {
      'p.provider.js': `import { ALERTS } from ${FIXTURES};\nexport const providers = [{ ...ALERTS, name: 'js' }];\n`,
      'q.provider.ts': `const { ALERTS } = require(${FIXTURES});\nmodule.exports = { providers: [{ ...ALERTS, name: 'cjs' }] };\n`,
    });
    expect((await load(d, { provider: './p.provider.js' })).provider?.names).toEqual(['js']);
    expect((await load(d, { provider: './q.provider.ts' })).provider?.names).toEqual(['cjs']);
  });

  it('a syntax error in such a module is still reported with its position (exit 2)', async () => {
    const d = dir('syntax', { 'p.provider.ts': 'export const providers = [;\n' });
    const error = await load(d, { provider: './p.provider.ts' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toMatch(/syntax error at .*p\.provider\.ts:1:\d+/);
  });
});

describe('module state that leaks from run to run is detected', () => {
  async function fuzz(module: string) {
    const out = mkdtempSync(join(root, 'failures-'));
    const { code, stdout } = await runCli([
      'fuzz',
      '--provider',
      module,
      '--property',
      'versions',
      '--runs',
      '60',
      '--out',
      out,
      '--json',
    ]);
    const report = JSON.parse(stdout.join('')) as {
      properties: { id: string; status: string; violations?: { checker: string; message: string }[] }[];
    };
    return { code, violations: report.properties[0]?.violations ?? [] };
  }

  it('a failure that depends on earlier runs says so: a fresh instance of the module passes it', async () => {
    const { code, violations } = await fuzz('src/cli/testdata/stateful.provider.ts');
    expect(code).toBe(1);
    expect(violations.map((v) => v.checker)).toEqual(['v1-read-only', 'module-state-isolation']);
    expect(violations[1]?.message).toMatch(/module state leaks between runs: .* a fresh instance .* passes/);
  });

  // Found at run 1 of the campaign worker's first job: the campaign's own run 1 is the fresh
  // instance's run (no worker is started for the re-run: campaign.ts freshRunKnown), and the verdict
  // is the one the re-run in a fresh worker gives (the same --json bytes, checked by hand).
  it("a failure at a fresh instance's first run that the same instance does not repeat says so", async () => {
    const out = mkdtempSync(join(root, 'failures-'));
    const module = 'src/cli/testdata/first-runs-leaky.provider.ts';
    const args = ['fuzz', '--provider', module, '--property', 'versions', '--seed', '1', '--runs', '5'];
    const { code, stdout } = await runCli([...args, '--no-shrink', '--out', out, '--json']);
    const report = JSON.parse(stdout.join('')) as {
      properties: { violations?: { checker: string; message: string }[] }[];
    };
    const violations = report.properties[0]?.violations ?? [];
    expect(code).toBe(1);
    expect(violations.map((v) => v.checker)).toEqual(['run-not-reproducible', 'module-state-isolation']);
    expect(violations[1]?.message).toMatch(
      /after 0 earlier run\(s\) .* a fresh instance .* fails differently \(v1-read-only\)/,
    );
  });

  it('a failure that does not depend on earlier runs gets no such verdict', async () => {
    const { code, violations } = await fuzz('src/cli/testdata/leaky-alerts.provider.ts');
    expect(code).toBe(1);
    expect(violations.map((v) => v.checker)).toEqual(['v1-read-only']);
  });
});
