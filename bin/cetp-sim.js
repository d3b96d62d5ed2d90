#!/usr/bin/env node
// cetp-sim command line. An installed package runs the compiled JavaScript of dist/; a checkout of
// the repository (src/ beside bin/) runs the TypeScript sources through tsx, so that what runs is
// always the code as it is now, never a dist/ built before the last edit. CETP_SIM_FROM=dist or
// CETP_SIM_FROM=source chooses explicitly (the package tests run a checkout's dist/ this way).
import { existsSync } from 'node:fs';
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

let main;
if (from === 'source') {
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
  process.stderr.write(`cetp-sim: CETP_SIM_FROM must be "dist" or "source", not "${from}".\n`);
  process.exit(2);
}
process.exitCode = await main(process.argv.slice(2));
