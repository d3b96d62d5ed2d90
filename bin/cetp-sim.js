#!/usr/bin/env node
// cetp-sim command line. An installed package runs the compiled JavaScript of dist/; a checkout of
// the repository (src/ beside bin/) runs the TypeScript sources as they are now, never a dist/ built
// before the last edit: from one JavaScript file esbuild bundled of them, cached while none of its
// inputs changes (src/cli/worker/bundler.mjs; ~0.3 s of CPU to start against ~1.3 s through tsx),
// or through tsx if that bundle cannot be built or written. CETP_SIM_FROM=dist, =source or =tsx
// (the sources through tsx, no bundle) chooses explicitly (the package tests run a checkout's dist/).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';

// V8 tiers a function up to TurboFan after a budget of executed bytecode; the default (67,584)
// optimises many functions a job runs only briefly, and compiles each again in every worker isolate.
// A budget of 200,000 cut a two-thread ablate's CPU by ~15% with no measurable loss for one thread;
// 600,000 cut more but slowed a one-thread fuzz campaign by 20% (bench/README.md, "V8 options").
// Set before any of cetp-sim's code is compiled; process-wide, so worker threads have it too.
// CETP_SIM_V8=default keeps V8's defaults; CETP_SIM_V8='--flag …' sets other flags (benchmarks).
if (process.env.CETP_SIM_V8 !== 'default')
  setFlagsFromString(process.env.CETP_SIM_V8 || '--interrupt-budget=200000');

const source = new URL('../src/cli/main.ts', import.meta.url);
const compiled = new URL('../dist/src/cli/main.js', import.meta.url);
const from = process.env.CETP_SIM_FROM || (existsSync(source) ? 'source' : 'dist');

/** main() of a bundle of the sources, or null if none can be built (then tsx runs them). */
async function bundledMain() {
  let url;
  try {
    const { cachedBundle } = await import(new URL('../src/cli/worker/bundler.mjs', import.meta.url).href);
    url = await cachedBundle(fileURLToPath(source));
  } catch {
    return null;
  }
  return (await import(url.href)).main;
}

let main = from === 'source' ? await bundledMain() : null;
if (main) {
  // the bundle's
} else if (from === 'source' || from === 'tsx') {
  let tsx;
  try {
    tsx = await import('tsx/esm/api');
  } catch {
    // A checkout whose dependencies were never installed: say what to do, not Node's stack trace.
    const root = new URL('..', import.meta.url).pathname;
    process.stderr.write(`cetp-sim: tsx is not installed in ${root}: run \`npm ci\` there first.\n`);
    process.exit(2);
  }
  tsx.register();
  ({ main } = await import(source.href));
} else if (from === 'dist') {
  if (!existsSync(compiled)) {
    process.stderr.write(`cetp-sim: ${compiled.pathname} is missing: run \`npm run build\` first.\n`);
    process.exit(2);
  }
  ({ main } = await import(compiled.href));
} else {
  process.stderr.write(
    `cetp-sim: CETP_SIM_FROM must be "dist" or "source" (or "tsx": the sources, never bundled), not "${from}".\n`,
  );
  process.exit(2);
}
process.exitCode = await main(process.argv.slice(2));
