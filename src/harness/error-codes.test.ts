/**
 * CLI error codes have one home (src/harness/error-codes.ts, issue 33): every code the sources throw
 * is in `CliErrorCode`, and docs/error-codes.md lists exactly its codes. The type checks `new
 * CliError('…')`; this test also reads what the type cannot see: codes built at run time from strings
 * (the module boundary's refused imports, wording files' errors, commander's codes) and casts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI_ERROR_CODES, CliErrorCode, isCliErrorCode } from './error-codes.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === 'node_modules' || entry.name === 'testdata' ? [] : sources(path);
    return /\.(ts|mjs)$/.test(entry.name) && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/**
 * The error codes a source text throws: the first string argument of `new CliError(`, of the
 * helpers that pass a code on (`invalid(path, …)`, `unknown(…)`, `fail(…)`, `refused(…)`,
 * `new WordingError(…)`), an error message's `code: '…'`, and a refused import's `code: ` prefix.
 */
function thrownCodes(text: string): string[] {
  const patterns = [
    /new (?:CliError|WordingError)\(\s*'([a-z0-9_]+)'/g,
    /\b(?:unknown|fail|refused)\(\s*'([a-z0-9_]+)'/g,
    /\binvalid\(\s*\w+,\s*'([a-z0-9_]+)'/g,
    /type: 'error', code: '([a-z0-9_]+)'/g,
    /`(module_[a-z0-9_]+): \$\{/g,
  ];
  return patterns.flatMap((p) => [...text.matchAll(p)].map((m) => m[1] as string));
}

/** The codes docs/error-codes.md lists: the first cell of each table row. */
function documentedCodes(markdown: string): string[] {
  return [...markdown.matchAll(/^\| `([a-z0-9_]+)` \|/gm)].map((m) => m[1] as string);
}

describe('CLI error codes', () => {
  const files = sources(join(ROOT, 'src'));
  const thrown = new Map<string, string>();
  for (const file of files)
    for (const code of thrownCodes(readFileSync(file, 'utf8'))) thrown.set(code, relative(ROOT, file));

  it('reads the codes the sources throw', () => {
    expect(thrown.size).toBeGreaterThan(40);
    expect(thrown.get('replay_invalid')).toBe('src/harness/replay-file.ts');
    expect(thrown.has('module_second_copy')).toBe(true);
  });

  it('has every code thrown in the enum', () => {
    expect([...thrown].filter(([code]) => !isCliErrorCode(code)).map(([c, f]) => `${c} (${f})`)).toEqual([]);
  });

  it('maps every commander error code to a code of the enum', () => {
    const commander = readFileSync(join(ROOT, 'node_modules/commander/lib/command.js'), 'utf8');
    const codes = [...commander.matchAll(/'commander\.([a-zA-Z]+)'/g)]
      .map((m) => m[1] as string)
      .filter((c) => !['help', 'helpDisplayed', 'version', 'executeSubCommandAsync', 'error'].includes(c))
      .map((c) => c.replace(/[A-Z]/g, (x) => `_${x.toLowerCase()}`));
    expect(codes.length).toBeGreaterThan(3);
    expect(codes.filter((c) => !isCliErrorCode(c))).toEqual([]);
  });

  it('has unique snake_case codes', () => {
    expect(new Set(CLI_ERROR_CODES).size).toBe(CLI_ERROR_CODES.length);
    expect(CLI_ERROR_CODES.filter((c) => !/^[a-z][a-z0-9_]*$/.test(c))).toEqual([]);
    expect(CliErrorCode.InvalidOption).toBe('invalid_option');
  });

  it('lists exactly the enum in docs/error-codes.md', () => {
    const documented = documentedCodes(readFileSync(join(ROOT, 'docs/error-codes.md'), 'utf8'));
    expect(documented).toEqual([...CLI_ERROR_CODES]);
  });

  it('sees a code that is not in the enum, and one missing from the docs', () => {
    const probe = "throw new CliError(\n  'made_up_code', 'x');\nthrow invalid(path, 'replay_other', 'y');";
    expect(thrownCodes(probe)).toEqual(['made_up_code', 'replay_other']);
    expect(thrownCodes(probe).filter((c) => !isCliErrorCode(c))).toEqual(['made_up_code', 'replay_other']);
    expect(documentedCodes('| `invalid_option` | x |\n| `other` | y |')).not.toEqual([...CLI_ERROR_CODES]);
  });
});
