/**
 * Attributes a V8 CPU profile's samples to the categories of issue 37 (where a run's time goes).
 *
 * Each sample is one stack. Its category is decided in this order:
 * 1. the leaf: `(garbage collector)` → garbage collection, `(program)` → V8 native (compilers,
 *    parser, IC misses that no JS frame owns), `(idle)` → not CPU time (left out of the total);
 * 2. the stack, outermost frame first, for the *phases* a frame's function opens: module loading
 *    (a frame of Node's module loader, tsx or esbuild: everything a module evaluates at load, such
 *    as schemas compiled at import, counts as start-up), shrinking (a fast-check frame whose
 *    function name says shrink), world set-up (the functions that build a run's world and install
 *    its apps, `SETUP_FUNCTIONS`);
 * 3. the leaf's file, walking up past Node's internals and built-ins (so `JSON.parse`, `crypto.hash`
 *    or `TextEncoder` count for the project file that called them), by `FILE_RULES`.
 * Shares are of the profile's non-idle sampled time and add up to 100% by construction.
 */

export interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber?: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: CpuProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export const CATEGORIES = [
  'worker start-up / module loading',
  'world set-up',
  'scheduler',
  'Binder / Bundle copies',
  'schema validation (Ajv)',
  'oracles (src/check)',
  'trace recording / ground truth',
  'shrinking',
  'scenario generation (fast-check)',
  'scenario driver (properties/, src/fuzz)',
  'module-globals watch (src/harness/globals.ts)',
  'simulated apps and wire protocol (SDK, consumer, protocol)',
  'simulated Android (other src/sim)',
  'CLI, pool and reporting (src/cli)',
  'garbage collection',
  'V8 native (program)',
  'other',
] as const;
export type Category = (typeof CATEGORIES)[number];

/** Functions whose whole subtree is a run's world being built and its apps installed. */
export const SETUP_FUNCTIONS = new Set([
  'scenarioWorld',
  'installActors',
  'installConsumerWorld',
  'consumerWorld',
  'install',
  'installProvider',
  'installFixture',
]);

/** Relative path (to the repository root) → category; the first matching prefix wins. */
export const FILE_RULES: readonly (readonly [string, Category])[] = [
  ['node_modules/ajv/', 'schema validation (Ajv)'],
  ['node_modules/ajv-formats/', 'schema validation (Ajv)'],
  ['src/protocol/schemas/', 'schema validation (Ajv)'],
  ['src/protocol/tool-schema.ts', 'schema validation (Ajv)'],
  ['node_modules/fast-check/', 'scenario generation (fast-check)'],
  ['node_modules/tsx/', 'worker start-up / module loading'],
  ['node_modules/esbuild/', 'worker start-up / module loading'],
  ['node_modules/get-tsconfig/', 'worker start-up / module loading'],
  ['src/sim/core/scheduler.ts', 'scheduler'],
  ['src/sim/core/task.ts', 'scheduler'],
  ['src/sim/core/strategy.ts', 'scheduler'],
  ['src/sim/binder/binder.ts', 'Binder / Bundle copies'],
  ['src/sim/binder/bundle.ts', 'Binder / Bundle copies'],
  ['src/sim/binder/parcel.ts', 'Binder / Bundle copies'],
  ['src/sim/world-parcel.ts', 'Binder / Bundle copies'],
  ['src/sim/core/trace.ts', 'trace recording / ground truth'],
  ['src/sim/core/trace-render.ts', 'trace recording / ground truth'],
  ['src/sim/ground-truth.ts', 'trace recording / ground truth'],
  ['src/check/', 'oracles (src/check)'],
  ['src/harness/globals.ts', 'module-globals watch (src/harness/globals.ts)'],
  ['src/harness/own-objects.ts', 'module-globals watch (src/harness/globals.ts)'],
  ['src/harness/escapes.ts', 'module-globals watch (src/harness/globals.ts)'],
  ['src/sim/', 'simulated Android (other src/sim)'],
  ['src/providers/', 'simulated apps and wire protocol (SDK, consumer, protocol)'],
  ['src/consumer/', 'simulated apps and wire protocol (SDK, consumer, protocol)'],
  ['src/protocol/', 'simulated apps and wire protocol (SDK, consumer, protocol)'],
  ['src/zoo/', 'simulated apps and wire protocol (SDK, consumer, protocol)'],
  ['examples/', 'simulated apps and wire protocol (SDK, consumer, protocol)'],
  ['properties/', 'scenario driver (properties/, src/fuzz)'],
  ['src/fuzz/', 'scenario driver (properties/, src/fuzz)'],
  ['src/harness/', 'scenario driver (properties/, src/fuzz)'],
  ['src/cli/', 'CLI, pool and reporting (src/cli)'],
  ['src/base/', 'other'],
];

const LOADER = /^node:internal\/(modules|main|process\/esm_loader|vm)|^node:internal\/deps\/cjs-module-lexer/;

/** The path of a frame's file relative to the repository (or node_modules), '' for natives. */
export function relativePath(url: string, roots: readonly string[]): string {
  let path = url.startsWith('file://') ? decodeURIComponent(url.slice('file://'.length)) : url;
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) return path.slice(nm + 1);
  for (const root of roots) {
    if (path.startsWith(root)) {
      path = path.slice(root.length);
      return path.startsWith('/') ? path.slice(1) : path;
    }
  }
  return path;
}

function fileCategory(rel: string): Category | undefined {
  for (const [prefix, category] of FILE_RULES) if (rel.startsWith(prefix)) return category;
  return undefined;
}

export interface Attribution {
  /** Sampled non-idle CPU time in ms. */
  totalMs: number;
  idleMs: number;
  byCategory: Record<Category, number>;
  /** The heaviest files by self time (after built-ins are charged to their caller), ms. */
  topFiles: { file: string; ms: number }[];
  topFunctions: { fn: string; ms: number }[];
}

export function emptyByCategory(): Record<Category, number> {
  return Object.fromEntries(CATEGORIES.map((c) => [c, 0])) as Record<Category, number>;
}

/** Attributes one profile; `roots` are the checkout paths to strip from file URLs. */
export function attribute(profile: CpuProfile, roots: readonly string[]): Attribution {
  const byId = new Map<number, CpuProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const selfUs = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const id = samples[i] as number;
    // timeDeltas[i] is the time before sample i; the time a sample stands for is the next delta.
    const dt = deltas[i + 1] ?? 0;
    if (dt > 0) selfUs.set(id, (selfUs.get(id) ?? 0) + dt);
  }
  const byCategory = emptyByCategory();
  const files = new Map<string, number>();
  const fns = new Map<string, number>();
  let idle = 0;
  let total = 0;
  const memo = new Map<number, { category: Category; file: string; fn: string }>();
  const classify = (id: number): { category: Category; file: string; fn: string } => {
    const known = memo.get(id);
    if (known) return known;
    const stack: CpuProfileNode[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const node = byId.get(at);
      if (node) stack.push(node);
    }
    const leaf = stack[0] as CpuProfileNode;
    let result: { category: Category; file: string; fn: string } | undefined;
    const leafName = leaf.callFrame.functionName;
    if (leafName === '(garbage collector)')
      result = { category: 'garbage collection', file: '(gc)', fn: '(gc)' };
    else if (leafName === '(program)')
      result = { category: 'V8 native (program)', file: '(program)', fn: '(program)' };
    let owner: { file: string; fn: string } | undefined;
    for (const frame of stack) {
      const rel = relativePath(frame.callFrame.url, roots);
      if (rel === '' || rel.startsWith('node:')) continue;
      owner = { file: rel, fn: `${rel} ${frame.callFrame.functionName || '(anonymous)'}` };
      break;
    }
    if (!result) {
      // Phases, outermost first: a module's evaluation, a shrink, a world being built.
      for (let i = stack.length - 1; i >= 0 && !result; i--) {
        const frame = (stack[i] as CpuProfileNode).callFrame;
        const rel = relativePath(frame.url, roots);
        const f = owner ?? { file: rel, fn: frame.functionName };
        if (
          LOADER.test(rel) ||
          rel.startsWith('node_modules/tsx/') ||
          rel.startsWith('node_modules/esbuild/')
        )
          result = { category: 'worker start-up / module loading', ...f };
        else if (rel.startsWith('node_modules/fast-check/') && /shrink/i.test(frame.functionName))
          result = { category: 'shrinking', ...f };
        else if (SETUP_FUNCTIONS.has(frame.functionName) && rel !== '')
          result = { category: 'world set-up', ...f };
      }
    }
    if (!result) {
      const category = owner ? (fileCategory(owner.file) ?? 'other') : 'other';
      result = { category, file: owner?.file ?? `(${leafName || 'native'})`, fn: owner?.fn ?? leafName };
    }
    memo.set(id, result);
    return result;
  };
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (node?.callFrame.functionName === '(idle)') {
      idle += us;
      continue;
    }
    const c = classify(id);
    total += us;
    byCategory[c.category] += us;
    files.set(c.file, (files.get(c.file) ?? 0) + us);
    fns.set(c.fn, (fns.get(c.fn) ?? 0) + us);
  }
  const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
  for (const c of CATEGORIES) byCategory[c] = byCategory[c] / 1000;
  return {
    totalMs: total / 1000,
    idleMs: idle / 1000,
    byCategory,
    topFiles: top(files, 25).map(([file, us]) => ({ file, ms: us / 1000 })),
    topFunctions: top(fns, 25).map(([fn, us]) => ({ fn, ms: us / 1000 })),
  };
}

/** Sums attributions (the threads of one process). */
export function merge(parts: readonly Attribution[]): Attribution {
  const byCategory = emptyByCategory();
  const files = new Map<string, number>();
  const fns = new Map<string, number>();
  let totalMs = 0;
  let idleMs = 0;
  for (const p of parts) {
    totalMs += p.totalMs;
    idleMs += p.idleMs;
    for (const c of CATEGORIES) byCategory[c] += p.byCategory[c];
    for (const f of p.topFiles) files.set(f.file, (files.get(f.file) ?? 0) + f.ms);
    for (const f of p.topFunctions) fns.set(f.fn, (fns.get(f.fn) ?? 0) + f.ms);
  }
  const top = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, 25);
  return {
    totalMs,
    idleMs,
    byCategory,
    topFiles: top(files).map(([file, ms]) => ({ file, ms })),
    topFunctions: top(fns).map(([fn, ms]) => ({ fn, ms })),
  };
}

/** Percent shares of each category, rounded to 0.1, adjusted so they add up to exactly 100.0. */
export function shares(a: Attribution): Record<Category, number> {
  const out = emptyByCategory();
  if (a.totalMs <= 0) return out;
  const tenths = CATEGORIES.map((c) => ({ c, exact: (a.byCategory[c] / a.totalMs) * 1000 }));
  const floored = tenths.map((t) => ({ ...t, v: Math.floor(t.exact) }));
  let left = 1000 - floored.reduce((s, t) => s + t.v, 0);
  for (const t of [...floored].sort((x, y) => y.exact - y.v - (x.exact - x.v))) {
    if (left <= 0) break;
    t.v += 1;
    left -= 1;
  }
  for (const t of floored) out[t.c] = t.v / 10;
  return out;
}
