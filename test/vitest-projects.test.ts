/**
 * vitest.projects.ts's rule, held: a test file runs in a shared worker (vitest.config.ts, `isolate:
 * false`) only if it leaves nothing behind in the process — it reaches no code of src/cli through its
 * imports (src/cli/testdata's modules apart: plain providers and consumers), and assigns no property
 * of a built-in or a prototype. Every other file outside src/cli is listed in ISOLATED, and only those.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, parse, ROOT, sourceFiles } from '../src/tidy/source-scan.ts';
import { leftBehind, processState } from '../vitest.cli-state.ts';
import { CLI_SHARED, ISOLATED } from '../vitest.projects.ts';

const CLI = join(ROOT, 'src', 'cli');
const TESTDATA = join(CLI, 'testdata');
/** An assignment to a built-in's or a prototype's property (not a comparison). */
const PATCHES =
  /(?:\b(?:globalThis|Object|Array|Math|JSON|Date|Promise|String|Number|Reflect|process|console)(?:\.\w+)+|\.prototype\.\w+)\s*=(?!=)|Object\.defineProperty\(\s*(?:globalThis|Math|JSON|Object|Array|Date|process)\b/;

type Imports = (file: string) => readonly string[];

/** Each file's relative imports, parsed once. */
function importsFromDisk(): Imports {
  const seen = new Map<string, readonly string[]>();
  return (file) => {
    let found = seen.get(file);
    if (found === undefined) {
      const code = /\.(?:[cm]?ts|[cm]?js)$/.test(file) && existsSync(file);
      found = code ? importsOf(parse(file)) : [];
      seen.set(file, found);
    }
    return found;
  };
}

const SRC = join(ROOT, 'src');

/**
 * The first file of src/cli (not its testdata) that `file` reaches through its imports, or null.
 * A module of src/ outside src/cli is not walked: the CLI is src/'s top layer, and nothing below it
 * imports it (src/import-graph.test.ts holds the layers).
 */
function reachesCli(file: string, imports: Imports): string | null {
  const seen = new Set<string>();
  const stack = [...imports(file)];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (seen.has(next)) continue;
    seen.add(next);
    const inCli = next.startsWith(`${CLI}/`);
    if (inCli && !next.startsWith(`${TESTDATA}/`)) return next;
    if (inCli || !next.startsWith(`${SRC}/`)) stack.push(...imports(next));
  }
  return null;
}

/** Why `file` must run isolated, or null. */
function whyIsolated(file: string, imports: Imports): string | null {
  const cli = reachesCli(file, imports);
  if (cli !== null) return `reaches ${relative(ROOT, cli)}`;
  const patch = PATCHES.exec(readFileSync(file, 'utf8'));
  return patch ? `assigns ${patch[0].trim()}` : null;
}

const testFiles = (dir: string) =>
  sourceFiles(join(ROOT, dir), { tests: true }).filter((f) => f.endsWith('.test.ts'));

describe('vitest.projects.ts: the files that run isolated', () => {
  it('are exactly the test files outside src/cli that reach the CLI or patch a built-in', () => {
    const imports = importsFromDisk();
    const files = ['src', 'properties', 'vectors', 'test', 'examples']
      .flatMap(testFiles)
      .filter((f) => !f.startsWith(`${CLI}/`));
    expect(files.length).toBeGreaterThan(150);
    const why = new Map(files.map((f) => [relative(ROOT, f), whyIsolated(f, imports)] as const));
    const needed = [...why].filter(([, w]) => w !== null).map(([f]) => f);
    const listed = new Set(ISOLATED);
    // Named with the reason, so that the message says what to add to ISOLATED (or remove from it).
    expect(needed.filter((f) => !listed.has(f)).map((f) => `${f}: ${why.get(f)}`)).toEqual([]);
    expect(ISOLATED.filter((f) => !needed.includes(f))).toEqual([]);
    expect([...ISOLATED]).toEqual([...ISOLATED].sort());
  });

  it('the rule can fail: a file that imports the CLI through a helper, or patches a built-in', () => {
    const at = (f: string) => join(ROOT, f);
    const graph: Record<string, string[]> = {
      [at('properties/x.test.ts')]: [at('properties/helper.ts')],
      [at('properties/helper.ts')]: [at('src/cli/main.ts')],
      [at('properties/y.test.ts')]: [at('src/cli/testdata/my-alerts.provider.ts')],
      [at('src/cli/testdata/my-alerts.provider.ts')]: [at('src/index.ts')],
    };
    const imports: Imports = (f) => graph[f] ?? [];
    expect(reachesCli(at('properties/x.test.ts'), imports)).toBe(at('src/cli/main.ts'));
    expect(reachesCli(at('properties/y.test.ts'), imports)).toBeNull();
    // Each sample in two parts, so that this file's own text is no patch.
    const patch = (...parts: string[]) => PATCHES.test(parts.join(''));
    expect(patch('Array.prototype.includes ', '= () => true;')).toBe(true);
    expect(patch('globalThis.structuredClone ', '= (v) => v;')).toBe(true);
    expect(patch('process.env.CETP_SIM_FROM ', "= 'dist';")).toBe(true);
    expect(patch('Object.define', "Property(Math, 'max', { writable: false });")).toBe(true);
    expect(patch('expect(Math.max ', '=== m).toBe(true); const a = Array.isArray(x);')).toBe(false);
  });
});

describe('vitest.cli-guard.ts: a src/cli file sharing its process (cli-shared) leaves nothing behind', () => {
  it('a signal listener, a timer, a replaced global, a loader hook, a user module imported here, process.env, cwd and exit code are each named', () => {
    const before = processState();
    expect(leftBehind(before, processState())).toEqual([]);
    const onSignal = () => undefined;
    process.on('SIGINT', onSignal);
    const timer = setTimeout(() => undefined, 60_000);
    try {
      const now = processState(['/x/my.provider.ts']);
      const left = leftBehind(before, {
        ...now,
        members: new Map([...now.members, ['Math.random', () => 0.25]]),
        loader: new Map([...now.loader, ['_extensions.cts', () => undefined]]),
        env: `${now.env} `,
        cwd: '/elsewhere',
        exitCode: 1,
      });
      expect(left).toEqual([
        'global Math.random replaced',
        'node:module _extensions.cts added',
        "process listeners of 'SIGINT': 0 → 1",
        '1 more active Timeout',
        'a user module imported in this thread: /x/my.provider.ts',
        'process.env changed',
        'the working directory changed to /elsewhere',
        'process.exitCode set to 1',
      ]);
    } finally {
      process.off('SIGINT', onSignal);
      clearTimeout(timer);
    }
    expect(leftBehind(before, processState())).toEqual([]);
  });

  it('lists src/cli test files only, sorted, none of src/cli/worker (booted fresh) or broken-modules', () => {
    for (const f of CLI_SHARED) {
      expect(existsSync(join(ROOT, f)), f).toBe(true);
      expect(f).toMatch(/^src\/cli\/(?!worker\/).*\.test\.ts$/);
    }
    expect(CLI_SHARED).not.toContain('src/cli/broken-modules.test.ts');
    expect([...CLI_SHARED]).toEqual([...CLI_SHARED].sort());
  });
});
