/**
 * Where a user's module lives: MODULE (as given to `--provider`, `--consumer` or the harness's
 * `module` option) is a file path, resolved against a directory, or a package name resolvable from
 * it — as `import` resolves it (the package's "exports" under the "import" condition: an ES-module
 * only package too; import-meta-resolve implements Node's algorithm), else as `require` does.
 * Resolving reads the file system only; nothing is loaded here.
 */
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { resolve as importResolve } from 'import-meta-resolve';
import { CliError } from './errors.ts';

export function looksLikePath(specifier: string): boolean {
  return specifier.startsWith('.') || isAbsolute(specifier) || /\.[cm]?[jt]s$/.test(specifier);
}

/** The file a specifier names, or a CliError `module_not_found`. */
export function resolveModule(flag: string, specifier: string, cwd: string): string {
  const asPath = resolve(cwd, specifier);
  if (existsSync(asPath) && statSync(asPath).isFile()) return asPath;
  if (!looksLikePath(specifier)) {
    const parent = join(cwd, 'noop.js');
    try {
      const url = importResolve(specifier, pathToFileURL(parent).href);
      if (url.startsWith('file:') && existsSync(fileURLToPath(url))) return fileURLToPath(url);
    } catch {
      // not resolvable as an import: try require's resolution
    }
    try {
      return createRequire(parent).resolve(specifier);
    } catch {
      // reported below
    }
  }
  throw new CliError(
    'module_not_found',
    `${flag} ${specifier}: no such file (looked for ${asPath})${looksLikePath(specifier) ? '' : ' and no such package'}`,
  );
}
