/**
 * Where cetp-sim's files are. Source scans (enforcement points, test titles) and spec files are read
 * from here, not from the current directory, so the commands work wherever they are run from.
 *
 * Two layouts: a checkout runs the TypeScript sources (`<root>/src/harness/root.ts`), an installed
 * package runs the compiled JavaScript (`<root>/dist/src/harness/root.js`, see scripts/build.mjs).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const code = new URL('../../', import.meta.url);

/** The directory holding the running code's `src/`: the root, or its `dist/`. */
export const CODE_ROOT = fileURLToPath(code);

/** The package root: package.json, spec/, vectors/ (dist/ has no package.json). */
export const PACKAGE_ROOT = existsSync(new URL('package.json', code))
  ? CODE_ROOT
  : fileURLToPath(new URL('../', code));
