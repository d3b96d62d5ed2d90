import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { testCoverage } from '../../check/test-titles.ts';
import { allRules } from '../../protocol/index.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** Issue "provider SDK": at least one test per provider-side MUST / MUST NOT of §2–§7 and §10. */
describe('provider conformance coverage', () => {
  it('every testable provider-side MUST / MUST NOT of §2–§7 and §10 is named by a provider test', () => {
    const covered = testCoverage(root, ['src/providers']);
    const required = allRules().filter(
      (r) =>
        (r.level === 'MUST' || r.level === 'MUST NOT') &&
        ['provider', 'both', 'sdk'].includes(r.actor) &&
        r.testableInSimulation &&
        /^CETP-(2|3|4|5|6|7|10)[.-]/.test(r.id),
    );
    const missing = required.filter((r) => !covered.has(r.id)).map((r) => `${r.id} ${r.textEn}`);
    expect(missing).toEqual([]);
  });
});
