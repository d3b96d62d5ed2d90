#!/usr/bin/env node
// `npm run build` (and `prepare`): cetp-sim's sources compiled to JavaScript and `.d.ts` in dist/,
// with the files the compiled code reads or loads at run time beside it. The installed package runs
// dist/ (bin/cetp-sim.js picks it when src/ is absent); a checkout runs the sources, so a stale dist/
// is never what a test or a developer's CLI runs.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const dist = join(root, 'dist');

rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], {
  stdio: 'inherit',
});
if (compiled.status !== 0) {
  console.error('build: tsc failed');
  process.exit(compiled.status ?? 1);
}

// Run-time files that are not TypeScript: the worker threads' boot and module hooks, and the sources
// of the shared test vectors (read by `cetp-sim vectors generate`/`verify`).
const assets = [
  ['src/cli/worker', (name) => name.endsWith('.mjs')],
  ['src/vectors/sources', (name) => name.endsWith('.json')],
];
for (const [dir, wanted] of assets) {
  mkdirSync(join(dist, dir), { recursive: true });
  for (const name of readdirSync(join(root, dir)).filter(wanted)) {
    cpSync(join(root, dir, name), join(dist, dir, name));
  }
}

// Which tests name which rules (`cetp-sim rules --coverage`): the tests are not in the package, so
// their titles are read here, once, and recorded beside the compiled code.
const titles = await import(pathToFileURL(join(dist, 'src/check/test-titles.js')).href);
const coverage = await import(pathToFileURL(join(dist, 'src/cli/coverage.js')).href);
const tests = titles.testCoverage(root, coverage.TEST_DIRS);
const recorded = Object.fromEntries([...tests.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(join(dist, 'rule-tests.json'), `${JSON.stringify(recorded, null, 1)}\n`);

if (!existsSync(join(dist, 'src/index.js')) || !existsSync(join(dist, 'src/index.d.ts'))) {
  console.error('build: dist/src/index.js or its .d.ts is missing');
  process.exit(1);
}
console.log(`build: ${dist} ready`);
