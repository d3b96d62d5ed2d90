/**
 * Loading a user's module (`--provider MODULE`, `--consumer MODULE`) with a dynamic import. MODULE
 * is a file path, resolved against the current directory, or a package name resolvable from it.
 * TypeScript modules load as well as JavaScript ones: the cetp-sim binary runs under tsx. User
 * modules are imported in worker threads (worker/boot.mjs), whose hooks (worker/esm-hooks.mjs) load
 * a `.ts`/`.js` file with ES module syntax as an ES module wherever it lives — with or without a
 * package.json, even under "type": "commonjs".
 * Every way this can go wrong is a CliError (exit 2) naming the flag and the module.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { transformSync } from 'esbuild';
import { CliError } from '../harness/errors.ts';
import { resolveModule } from '../harness/module-path.ts';

export { resolveModule };

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
    throw new CliError(
      'module_load_failed',
      `${flag} ${specifier}: the module failed to load: ${loadFailure(error, file)}`,
    );
  }
}

/**
 * Why a module failed to load, in one line a user can act on: for a syntax error, the file, line,
 * column and what the parser expected (esbuild's own message for TypeScript; for JavaScript, whose
 * SyntaxError carries no position, the same parser run over the file to find it).
 */
export function loadFailure(error: unknown, file: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const located = message.split('\n').find((line) => /:\d+:\d+: ERROR: /.test(line));
  if (located) return `syntax error at ${located.replace(': ERROR: ', ': ')}`;
  if (error instanceof SyntaxError) return syntaxErrorAt(file) ?? message.split('\n')[0] ?? message;
  return message.split('\n')[0] ?? message;
}

function syntaxErrorAt(file: string): string | null {
  try {
    transformSync(readFileSync(file, 'utf8'), {
      loader: /\.[cm]?ts$/.test(file) ? 'ts' : 'js',
      sourcefile: file,
      format: 'esm',
    });
    return null;
  } catch (error) {
    const first = (
      error as {
        errors?: { text: string; location: { file: string; line: number; column: number } | null }[];
      }
    ).errors?.[0];
    if (!first?.location) return null;
    const { line, column } = first.location;
    return `syntax error at ${file}:${line}:${column}: ${first.text}`;
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
