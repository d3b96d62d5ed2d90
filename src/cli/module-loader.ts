/**
 * Loading a user's module (`--provider MODULE`, `--consumer MODULE`) with a dynamic import. MODULE
 * is a file path, resolved against the current directory, or a package name resolvable from it.
 * TypeScript modules load as well as JavaScript ones: the cetp-sim binary runs under tsx.
 * Every way this can go wrong is a CliError (exit 2) naming the flag and the module.
 */
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CliError } from './errors.ts';

function looksLikePath(specifier: string): boolean {
  return specifier.startsWith('.') || isAbsolute(specifier) || /\.[cm]?[jt]s$/.test(specifier);
}

/** The file a specifier names, or a CliError `module_not_found`. */
export function resolveModule(flag: string, specifier: string, cwd: string): string {
  const asPath = resolve(cwd, specifier);
  if (existsSync(asPath) && statSync(asPath).isFile()) return asPath;
  if (!looksLikePath(specifier)) {
    try {
      return createRequire(join(cwd, 'noop.js')).resolve(specifier);
    } catch {
      // reported below
    }
  }
  throw new CliError(
    'module_not_found',
    `${flag} ${specifier}: no such file (looked for ${asPath})${looksLikePath(specifier) ? '' : ' and no such package'}`,
  );
}

/** Imports the module a specifier names; its exports, or a CliError. */
export async function importUserModule(
  flag: string,
  specifier: string,
  cwd: string,
): Promise<Record<string, unknown>> {
  const file = resolveModule(flag, specifier, cwd);
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new CliError('module_load_failed', `${flag} ${specifier}: the module failed to load: ${message}`);
  }
}

/** The first of `names` the module exports, looking in the default export too (CommonJS modules). */
export function exported(module: Record<string, unknown>, names: readonly string[]): unknown {
  const fallback = module.default;
  for (const name of names) {
    if (module[name] !== undefined) return module[name];
    if (typeof fallback === 'object' && fallback !== null && name in fallback)
      return (fallback as Record<string, unknown>)[name];
  }
  return undefined;
}
