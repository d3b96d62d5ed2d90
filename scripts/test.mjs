#!/usr/bin/env node
// `npm test`: the typecheck (`npm run typecheck`), the lint (`npm run lint`) and the test suite
// (`vitest run`, with any arguments given), the two checks started beside the suite rather than
// before it — their ~20 s of CPU fill the cores the suite leaves idle, instead of adding their wall
// time in front of it (bench/README.md, "npm test by file, 2026-12-05 (tests-rest)"). Every check
// still runs to its end: the checks' output is printed after the suite's, each under its name, and
// the exit code is the first failure's (typecheck, lint, tests), 0 when all three passed. (So a type
// error no longer stops the suite from starting: `npm run typecheck` alone is the quick check.)
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const windows = process.platform === 'win32';

/** Runs `command`, its output kept (captured) or passed through; resolves to its exit code and output. */
function run(command, args, captured) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: captured ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      shell: windows,
    });
    const chunks = [];
    if (captured) {
      child.stdout.on('data', (chunk) => chunks.push(chunk));
      child.stderr.on('data', (chunk) => chunks.push(chunk));
    }
    child.on('error', (error) => resolve({ code: 1, output: `${error.message}\n` }));
    child.on('close', (code, signal) =>
      resolve({ code: code ?? (signal ? 1 : 0), output: Buffer.concat(chunks).toString('utf8') }),
    );
  });
}

const checks = [
  ['typecheck', run('npm', ['run', '--silent', 'typecheck'], true)],
  ['lint', run('npm', ['run', '--silent', 'lint'], true)],
];
const vitest = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
const tests = await run(process.execPath, [vitest, 'run', ...process.argv.slice(2)], false);
let code = 0;
for (const [name, pending] of checks) {
  const { code: exit, output } = await pending;
  process.stdout.write(`\n${name}: ${exit === 0 ? 'passed' : `FAILED (exit ${exit})`}\n${output}`);
  if (code === 0 && exit !== 0) code = exit;
}
if (code === 0) code = tests.code;
process.exit(code);
