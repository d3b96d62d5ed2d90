#!/usr/bin/env node
// cetp-sim command line. An installed package runs the compiled JavaScript of dist/; a checkout of
// the repository (src/ beside bin/) runs the TypeScript sources through tsx, so that what runs is
// always the code as it is now, never a dist/ built before the last edit. CETP_SIM_FROM=dist or
// CETP_SIM_FROM=source chooses explicitly (the package tests run a checkout's dist/ this way).
import { existsSync } from 'node:fs';

const source = new URL('../src/cli/main.ts', import.meta.url);
const compiled = new URL('../dist/src/cli/main.js', import.meta.url);
const from = process.env.CETP_SIM_FROM || (existsSync(source) ? 'source' : 'dist');

let main;
if (from === 'source') {
  const { register } = await import('tsx/esm/api');
  register();
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
