import { describe, expect, it } from 'vitest';
import { quantile, summarise } from '../bench/ab.ts';
import { attribute, type CpuProfile, type CpuProfileNode, shares } from '../bench/profile/attribute.ts';

const ROOT = '/repo';
const frame = (id: number, functionName: string, url: string, children: number[] = []): CpuProfileNode => ({
  id,
  callFrame: { functionName, url },
  children,
});

/** A profile whose samples each stand for 1 ms (the time of sample i is timeDeltas[i + 1]). */
function profile(nodes: CpuProfileNode[], samples: number[]): CpuProfile {
  return {
    nodes,
    startTime: 0,
    endTime: samples.length * 1000,
    samples,
    timeDeltas: [0, ...samples.map(() => 1000)],
  };
}

const NODES = [
  frame(1, '(root)', '', [2, 3, 4, 5, 6, 9, 11, 13]),
  frame(2, '(garbage collector)', ''),
  frame(3, '(program)', ''),
  frame(4, '(idle)', ''),
  frame(5, 'pump', `file://${ROOT}/src/sim/core/scheduler.ts`, [7]),
  frame(6, 'runScenario', `file://${ROOT}/src/fuzz/scenario/runner.ts`, [8]),
  // JSON.parse and crypto count for the project file that called them.
  frame(7, 'hash', 'node:internal/crypto/hash'),
  frame(8, 'scenarioWorld', `file://${ROOT}/src/fuzz/scenario/runner.ts`, [10]),
  frame(9, 'moduleEvaluate', 'node:internal/modules/esm/module_job', [12]),
  frame(10, 'checkAll', `file://${ROOT}/src/check/checkers/index.ts`),
  frame(11, 'shrinkValue', 'file:///x/node_modules/fast-check/lib/fast-check.js', [14]),
  frame(12, 'compile', 'file:///x/node_modules/ajv/dist/core.js'),
  frame(13, 'check', `file://${ROOT}/src/check/observation.ts`),
  frame(14, 'viewCall', `file://${ROOT}/src/check/observation.ts`),
];

describe('profile attribution (bench/profile/attribute.ts)', () => {
  it('charges each sample to its phase or its file, built-ins to their caller, and leaves idle out', () => {
    const a = attribute(profile(NODES, [2, 3, 4, 4, 7, 7, 5, 10, 12, 14, 13, 13]), [ROOT]);
    expect(a.idleMs).toBe(2);
    expect(a.totalMs).toBe(10);
    expect(a.byCategory['garbage collection']).toBe(1);
    expect(a.byCategory['V8 native (program)']).toBe(1);
    // 7 (crypto under the scheduler) and 5 itself.
    expect(a.byCategory.scheduler).toBe(3);
    // An oracle called while the world is built is set-up time; a module's evaluation is start-up.
    expect(a.byCategory['world set-up']).toBe(1);
    expect(a.byCategory['worker start-up / module loading']).toBe(1);
    expect(a.byCategory.shrinking).toBe(1);
    expect(a.byCategory['oracles (src/check)']).toBe(2);
    expect(a.topFiles[0]).toEqual({ file: 'src/sim/core/scheduler.ts', ms: 3 });
  });

  it('rounds shares to tenths that add up to exactly 100', () => {
    // Three equal thirds: 33.3 + 33.3 + 33.3 would be 99.9.
    const s = shares(attribute(profile(NODES, [2, 3, 5]), [ROOT]));
    const values = Object.values(s);
    expect(values.reduce((x, y) => x + y, 0)).toBeCloseTo(100, 6);
    expect(values.filter((v) => v > 0).sort()).toEqual([33.3, 33.3, 33.4]);
  });
});

describe('A/B summary (bench/ab.ts)', () => {
  it('reports the median and quartiles of the per-pair ratios B ÷ A', () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    const s = summarise(
      { name: 'x', unit: 'runs per CPU-second', better: 'higher' },
      [100, 100, 200, 100],
      [110, 90, 300, 120],
      { a: [1, 1, 1, 1], b: [2, 2, 2, 2] },
      true,
    );
    expect(s.ratio).toEqual({ median: 1.15, q1: 1.05, q3: 1.275 });
    expect(s.medianA).toBe(100);
    expect(s.pairs).toBe(4);
  });
});
