/**
 * Every module format a user may write loads, or gets a structured exit 2 naming the file: `.cts`
 * (CommonJS TypeScript: `require` or `import` syntax, with types), `.mts`, `.cjs`, a CommonJS `.ts`
 * with types, `.js` under "type": "commonjs" and "type": "module" packages, a path with spaces and
 * non-ASCII characters, a symlinked module (its sibling imports resolved where it really lives).
 * Loaded the way the CLI loads them: in a worker thread (boot.mjs: tsx, then esm-hooks.mjs).
 */
import { symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliError } from '../harness/errors.ts';
import { moduleFuzzArgs, moduleScratch, runCli } from './testing.ts';
import { loadModules } from './user-modules.ts';
import type { LoadOutcome } from './worker/protocol.ts';

// A module of a user's own (public API only: src/cli/worker/boundary.mjs) that exports ALERTS.
const FIXTURES = JSON.stringify(resolve('src/cli/testdata/hostile/alerts-fixture.mjs'));
const scratch = moduleScratch('cetp-sim-formats-');
const { root, dir } = scratch;
const load = (cwd: string, provider: string): Promise<LoadOutcome> => scratch.load(cwd, { provider });

async function names(cwd: string, provider: string): Promise<readonly string[] | undefined> {
  return (await load(cwd, provider)).provider?.names;
}

async function refusal(cwd: string, provider: string): Promise<CliError> {
  const error = await load(cwd, provider).then(
    () => new Error('loaded'),
    (e: unknown) => e,
  );
  if (!(error instanceof CliError)) throw error;
  return error;
}

const CJS_REQUIRE = (name: string) =>
  `const { ALERTS } = require(${FIXTURES});\nconst name: string = '${name}';\nmodule.exports = { providers: [{ ...ALERTS, name }] };\n`;
const CJS_JS = (name: string) =>
  `const { ALERTS } = require(${FIXTURES});\nmodule.exports = { providers: [{ ...ALERTS, name: '${name}' }] };\n`;
const ESM_TS = (name: string) =>
  `import { ALERTS } from ${FIXTURES};\nconst name: string = '${name}';\nexport const providers = [{ ...ALERTS, name }];\n`;
const ESM_JS = (name: string) =>
  `import { ALERTS } from ${FIXTURES};\nexport const providers = [{ ...ALERTS, name: '${name}' }];\n`;

describe('module formats', () => {
  it('.cts with require and types, .cts with import syntax (compiled to require, as tsc does), and a .cts helper', async () => {
    const d = dir('cts', {
      'a.provider.cts': CJS_REQUIRE('cts_require'),
      'b.provider.cts': ESM_TS('cts_import'),
      'helper.cts': "export const suffix: string = '_helped';\n",
      'c.provider.cts': `import { ALERTS } from ${FIXTURES};\nimport { suffix } from './helper.cts';\nexport const providers = [{ ...ALERTS, name: 'cts' + suffix }];\n`,
    });
    // Loaded as the CLI loads them (user-modules.ts loadModules), not on the file's shared host: a
    // `.cts` module's require of an ES module is Node's require(esm), which the module hooks do not
    // see, so the CLI boots such a module's workers through tsx rather than from the split bundle
    // (worker/bundle.ts userCodeBundle); a worker started from the bundle fails FIXTURES' import of
    // src/index.ts ("Unknown file extension .ts").
    const viaCli = async (provider: string) => (await loadModules({ provider }, d, 120_000)).provider?.names;
    expect(await viaCli('./a.provider.cts')).toEqual(['cts_require']);
    expect(await viaCli('./b.provider.cts')).toEqual(['cts_import']);
    expect(await viaCli('./c.provider.cts')).toEqual(['cts_helped']);
  });

  it('.mts, .cjs, and a CommonJS .ts with types (no package.json)', async () => {
    const d = dir('mixed', {
      'a.provider.mts': ESM_TS('mts'),
      'b.provider.cjs': CJS_JS('cjs'),
      'c.provider.ts': CJS_REQUIRE('cjs_ts'),
    });
    expect(await names(d, './a.provider.mts')).toEqual(['mts']);
    expect(await names(d, './b.provider.cjs')).toEqual(['cjs']);
    expect(await names(d, './c.provider.ts')).toEqual(['cjs_ts']);
  });

  it('.js under "type": "commonjs" (CommonJS or ES module syntax) and under "type": "module"', async () => {
    const cjs = dir('type-commonjs', {
      'package.json': '{"name":"mine","type":"commonjs"}',
      'a.provider.js': CJS_JS('js_cjs'),
      'b.provider.js': ESM_JS('js_esm_in_cjs'),
    });
    expect(await names(cjs, './a.provider.js')).toEqual(['js_cjs']);
    expect(await names(cjs, './b.provider.js')).toEqual(['js_esm_in_cjs']);
    const esm = dir('type-module', {
      'package.json': '{"name":"mine","type":"module"}',
      'a.provider.js': ESM_JS('js_esm'),
      'b.provider.js': CJS_JS('js_require_in_esm'),
      'c.provider.cjs': CJS_JS('cjs_in_esm_package'),
    });
    expect(await names(esm, './a.provider.js')).toEqual(['js_esm']);
    expect(await names(esm, './c.provider.cjs')).toEqual(['cjs_in_esm_package']);
    // CommonJS in an ES module package is an error Node names; it reaches the user as one line, exit 2.
    const error = await refusal(esm, './b.provider.js');
    expect(error.code).toBe('module_load_failed');
    expect(error.message).toMatch(
      /^--provider \.\/b\.provider\.js: the module failed to load: require is not defined/,
    );
  });

  it('a path with spaces and non-ASCII characters, by relative and absolute path, and through the CLI', async () => {
    const d = dir('my modules/ünïcødé 模块', { 'p r.provider.ts': ESM_TS('spaced') });
    expect(await names(d, './p r.provider.ts')).toEqual(['spaced']);
    expect(await names(root, join(d, 'p r.provider.ts'))).toEqual(['spaced']);
    const { code, err } = await runCli(
      moduleFuzzArgs({
        role: 'provider',
        module: join(d, 'p r.provider.ts'),
        runs: 1,
        properties: ['versions'],
        out: root,
      }),
    );
    expect(code, err).toBe(0);
  });

  it('a symlinked module loads, its sibling imports resolved where it really lives', async () => {
    const real = dir('real', {
      'helper.ts': "export const suffix: string = '_linked';\n",
      'p.provider.ts': `import { ALERTS } from ${FIXTURES};\nimport { suffix } from './helper.ts';\nexport const providers = [{ ...ALERTS, name: 'sym' + suffix }];\n`,
    });
    const links = dir('links', {});
    symlinkSync(join(real, 'p.provider.ts'), join(links, 'p.provider.ts'));
    symlinkSync(real, join(links, 'dir'));
    expect(await names(links, './p.provider.ts')).toEqual(['sym_linked']);
    expect(await names(links, './dir/p.provider.ts')).toEqual(['sym_linked']);
    // A dangling link is a missing file.
    symlinkSync(join(real, 'gone.provider.ts'), join(links, 'gone.provider.ts'));
    const gone = await refusal(links, './gone.provider.ts');
    expect(gone.code).toBe('module_not_found');
    expect(gone.message).toContain(join(links, 'gone.provider.ts'));
  });

  it('a package name: an ES-module-only package ("exports" with "import" only), a CommonJS one, a dual one (its import entry)', async () => {
    const d = dir('packages', { 'package.json': '{"name":"project","type":"module"}' });
    const pkg = (name: string, manifest: object, files: Record<string, string>) =>
      dir(`packages/node_modules/${name}`, {
        'package.json': JSON.stringify({ name, ...manifest }),
        ...files,
      });
    pkg(
      'esm-only',
      { type: 'module', exports: { import: './index.js' } },
      { 'index.js': ESM_JS('esm_only') },
    );
    pkg('plain-cjs', { main: './main.js' }, { 'main.js': CJS_JS('plain_cjs') });
    pkg(
      'dual',
      { exports: { import: './index.mjs', require: './index.cjs' } },
      { 'index.mjs': ESM_JS('dual_import'), 'index.cjs': CJS_JS('dual_require') },
    );
    expect(await names(d, 'esm-only')).toEqual(['esm_only']);
    expect(await names(d, 'plain-cjs')).toEqual(['plain_cjs']);
    expect(await names(d, 'dual')).toEqual(['dual_import']);
    const missing = await refusal(d, 'no-such-package');
    expect(missing.code).toBe('module_not_found');
    expect(missing.message).toMatch(/no such package/);
  });

  it('a syntax error in a .cts module is reported with its file, line and column (exit 2)', async () => {
    const d = dir('cts-syntax', { 'p.provider.cts': 'const x: number = ;\nmodule.exports = {};\n' });
    const error = await refusal(d, './p.provider.cts');
    expect(error.code).toBe('module_load_failed');
    expect(error.message).toMatch(/syntax error at .*p\.provider\.cts:1:\d+/);
  });
});
